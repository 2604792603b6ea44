# Finds the CUDA toolkit pieces the live agent needs (CUPTI, NCCL and NVTX headers).
# Everything CUDA-side is switched off, with one message, where they are missing.
set(PLASMIENT_CUDA_FOUND OFF)
if(NOT PLASMIENT_WITH_CUDA STREQUAL "OFF")
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    find_path(PLASMIENT_CUPTI_INCLUDE cupti.h
      HINTS ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/include)
    find_library(PLASMIENT_CUPTI_LIB cupti
      HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/lib64)
    if(PLASMIENT_CUPTI_INCLUDE AND PLASMIENT_CUPTI_LIB)
      set(PLASMIENT_CUDA_FOUND ON)
    endif()
  endif()
  if(NOT PLASMIENT_CUDA_FOUND)
    if(PLASMIENT_WITH_CUDA STREQUAL "ON")
      message(FATAL_ERROR "PLASMIENT_WITH_CUDA=ON but the CUDA toolkit with CUPTI was not found")
    endif()
    message(STATUS "Plasmient: CUDA toolkit/CUPTI not found; the live agent is switched off")
  else()
    message(STATUS "Plasmient: live agent enabled (CUPTI at ${PLASMIENT_CUPTI_LIB})")
  endif()
endif()
