#include "roofline/dtype.h"

#include <array>
#include <utility>

namespace plasmient::roofline {
namespace {

struct DtypeSpelling {
  std::string_view text;
  Dtype dtype;
};

// Spellings seen in "Input type" across PyTorch versions: C++ type names (new) and
// ScalarType names (2021-era traces).
constexpr std::array kSpellings = {
    DtypeSpelling{"float", Dtype::kFp32},
    DtypeSpelling{"Float", Dtype::kFp32},
    DtypeSpelling{"c10::BFloat16", Dtype::kBf16},
    DtypeSpelling{"BFloat16", Dtype::kBf16},
    DtypeSpelling{"c10::Half", Dtype::kFp16},
    DtypeSpelling{"Half", Dtype::kFp16},
    DtypeSpelling{"half", Dtype::kFp16},
    DtypeSpelling{"double", Dtype::kFp64},
    DtypeSpelling{"Double", Dtype::kFp64},
    DtypeSpelling{"c10::Float8_e4m3fn", Dtype::kFp8},
    DtypeSpelling{"c10::Float8_e5m2", Dtype::kFp8},
    DtypeSpelling{"c10::Float8_e4m3fnuz", Dtype::kFp8},
    DtypeSpelling{"c10::Float8_e5m2fnuz", Dtype::kFp8},
    DtypeSpelling{"Float8_e4m3fn", Dtype::kFp8},
    DtypeSpelling{"Float8_e5m2", Dtype::kFp8},
    DtypeSpelling{"c10::Float8_e8m0fnu", Dtype::kFp8},  // MX block scales
    DtypeSpelling{"Float8_e8m0fnu", Dtype::kFp8},
    DtypeSpelling{"c10::Float4_e2m1fn_x2", Dtype::kFp4},
    DtypeSpelling{"Float4_e2m1fn_x2", Dtype::kFp4},
    DtypeSpelling{"signed char", Dtype::kInt8},
    DtypeSpelling{"Char", Dtype::kInt8},
    DtypeSpelling{"int8_t", Dtype::kInt8},
    DtypeSpelling{"unsigned char", Dtype::kUint8},
    DtypeSpelling{"Byte", Dtype::kUint8},
    DtypeSpelling{"uint8_t", Dtype::kUint8},
    DtypeSpelling{"short", Dtype::kInt16},
    DtypeSpelling{"short int", Dtype::kInt16},
    DtypeSpelling{"Short", Dtype::kInt16},
    DtypeSpelling{"int", Dtype::kInt32},
    DtypeSpelling{"Int", Dtype::kInt32},
    DtypeSpelling{"long int", Dtype::kInt64},
    DtypeSpelling{"long", Dtype::kInt64},
    DtypeSpelling{"long long", Dtype::kInt64},
    DtypeSpelling{"int64_t", Dtype::kInt64},
    DtypeSpelling{"Long", Dtype::kInt64},
    DtypeSpelling{"bool", Dtype::kBool},
    DtypeSpelling{"Bool", Dtype::kBool},
    DtypeSpelling{"c10::complex<float>", Dtype::kComplex64},
    DtypeSpelling{"ComplexFloat", Dtype::kComplex64},
    DtypeSpelling{"c10::complex<double>", Dtype::kComplex128},
    DtypeSpelling{"ComplexDouble", Dtype::kComplex128},
};

}  // namespace

Dtype ParseTorchDtype(std::string_view text) {
  for (const DtypeSpelling& s : kSpellings) {
    if (s.text == text) return s.dtype;
  }
  return Dtype::kUnknown;
}

Dtype DtypeFromScalarTypeCode(int code) {
  switch (code) {
    case 0:
      return Dtype::kUint8;
    case 1:
      return Dtype::kInt8;
    case 2:
      return Dtype::kInt16;
    case 3:
      return Dtype::kInt32;
    case 4:
      return Dtype::kInt64;
    case 5:
      return Dtype::kFp16;
    case 6:
      return Dtype::kFp32;
    case 7:
      return Dtype::kFp64;
    case 9:
      return Dtype::kComplex64;
    case 10:
      return Dtype::kComplex128;
    case 11:
      return Dtype::kBool;
    case 15:
      return Dtype::kBf16;
    case 23:
    case 24:
    case 25:
    case 26:
    case 44:  // Float8_e8m0fnu
      return Dtype::kFp8;
    case 45:  // Float4_e2m1fn_x2
      return Dtype::kFp4;
    default:
      return Dtype::kUnknown;
  }
}

int DtypeBytes(Dtype dtype) {
  switch (dtype) {
    case Dtype::kUnknown:
      return 0;
    case Dtype::kFp64:
      return 8;
    case Dtype::kFp32:
    case Dtype::kTf32:
      return 4;
    case Dtype::kBf16:
    case Dtype::kFp16:
      return 2;
    case Dtype::kFp8:
    case Dtype::kInt8:
    case Dtype::kUint8:
      return 1;
    case Dtype::kInt16:
      return 2;
    case Dtype::kInt32:
      return 4;
    case Dtype::kInt64:
      return 8;
    case Dtype::kBool:
      return 1;
    case Dtype::kComplex64:
      return 8;
    case Dtype::kComplex128:
      return 16;
    case Dtype::kFp4:
      return 1;  // one stored element packs two fp4 values
  }
  return 0;
}

std::string_view DtypeName(Dtype dtype) {
  switch (dtype) {
    case Dtype::kUnknown:
      return "unknown";
    case Dtype::kFp64:
      return "fp64";
    case Dtype::kFp32:
      return "fp32";
    case Dtype::kTf32:
      return "tf32";
    case Dtype::kBf16:
      return "bf16";
    case Dtype::kFp16:
      return "fp16";
    case Dtype::kFp8:
      return "fp8";
    case Dtype::kInt8:
      return "int8";
    case Dtype::kUint8:
      return "uint8";
    case Dtype::kInt16:
      return "int16";
    case Dtype::kInt32:
      return "int32";
    case Dtype::kInt64:
      return "int64";
    case Dtype::kBool:
      return "bool";
    case Dtype::kComplex64:
      return "complex64";
    case Dtype::kComplex128:
      return "complex128";
    case Dtype::kFp4:
      return "fp4";
  }
  return "unknown";
}

bool IsFloatingPoint(Dtype dtype) {
  switch (dtype) {
    case Dtype::kFp64:
    case Dtype::kFp32:
    case Dtype::kTf32:
    case Dtype::kBf16:
    case Dtype::kFp16:
    case Dtype::kFp8:
    case Dtype::kFp4:
    case Dtype::kComplex64:
    case Dtype::kComplex128:
      return true;
    default:
      return false;
  }
}

}  // namespace plasmient::roofline
