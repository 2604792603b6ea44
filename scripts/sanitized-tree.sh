# shellcheck shell=bash
# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: the one build folder they share, so that the
# libraries both need are compiled once (docs/checks.md, "Sanitizers").
#   configure_sanitized_tree BUILD
# clang-16, AddressSanitizer and UndefinedBehaviorSanitizer everywhere, libFuzzer's coverage in
# every library (-fsanitize=fuzzer-no-link; only the fuzz targets link libFuzzer itself), -O1 -g1:
# fast enough to build on two cores, line numbers in every report. The live agent is left out (a
# shared library loaded into other processes cannot carry ASan's runtime), and so are benchmarks.
# clang-16 reports __cpp_concepts 201907, which hides libstdc++ 12's <expected>; clang-16 does
# implement what <expected> needs, so the macro is raised for this build only.
configure_sanitized_tree() {
  CC=clang-16 CXX=clang++-16 cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" \
    -DPLASMIENT_SANITIZE=ON -DPLASMIENT_BUILD_FUZZ=ON -DPLASMIENT_BUILD_BENCH=OFF -DPLASMIENT_WITH_CUDA=OFF \
    -DPLASMIENT_UNITY_BUILD=ON \
    "-DCMAKE_CXX_FLAGS=-U__cpp_concepts -D__cpp_concepts=202002L -Wno-builtin-macro-redefined" >/dev/null
}
