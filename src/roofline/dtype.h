// Element types as PyTorch profiler traces spell them, and their widths.
#pragma once

#include <cstdint>
#include <string_view>

namespace plasmient::roofline {

enum class Dtype : std::uint8_t {
  kUnknown,
  kFp64,
  kFp32,
  kTf32,  // not a storage type: fp32 operands on the TF32 tensor path
  kBf16,
  kFp16,
  kFp8,
  kInt8,
  kUint8,
  kInt16,
  kInt32,
  kInt64,
  kBool,
  kComplex64,
  kComplex128,
  kFp4,  // c10::Float4_e2m1fn_x2: two fp4 values per stored element (MXFP4/NVFP4 payloads)
};

// "float", "c10::BFloat16", "c10::Half", "double", "long int", "Float", "BFloat16",
// "unsigned char", "bool", "c10::Float8_e4m3fn"... kUnknown for "", "Scalar", "TensorList".
Dtype ParseTorchDtype(std::string_view text);
// c10::ScalarType numbering as printed in Concrete Inputs (6 = Float, 15 = BFloat16...).
Dtype DtypeFromScalarTypeCode(int code);
// Bytes per element; 0 for kUnknown.
int DtypeBytes(Dtype dtype);
std::string_view DtypeName(Dtype dtype);
bool IsFloatingPoint(Dtype dtype);

}  // namespace plasmient::roofline
