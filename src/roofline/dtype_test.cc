#include "roofline/dtype.h"

#include <gtest/gtest.h>

namespace plasmient::roofline {
namespace {

TEST(Dtype, ParsesEverySpellingSeenInTraces) {
  EXPECT_EQ(ParseTorchDtype("float"), Dtype::kFp32);
  EXPECT_EQ(ParseTorchDtype("Float"), Dtype::kFp32);
  EXPECT_EQ(ParseTorchDtype("c10::BFloat16"), Dtype::kBf16);
  EXPECT_EQ(ParseTorchDtype("BFloat16"), Dtype::kBf16);
  EXPECT_EQ(ParseTorchDtype("c10::Half"), Dtype::kFp16);
  EXPECT_EQ(ParseTorchDtype("double"), Dtype::kFp64);
  EXPECT_EQ(ParseTorchDtype("long int"), Dtype::kInt64);
  EXPECT_EQ(ParseTorchDtype("unsigned char"), Dtype::kUint8);
  EXPECT_EQ(ParseTorchDtype("bool"), Dtype::kBool);
  EXPECT_EQ(ParseTorchDtype("c10::Float8_e4m3fn"), Dtype::kFp8);
  EXPECT_EQ(ParseTorchDtype("c10::Float8_e5m2"), Dtype::kFp8);
  EXPECT_EQ(ParseTorchDtype("int"), Dtype::kInt32);
  EXPECT_EQ(ParseTorchDtype("c10::complex<float>"), Dtype::kComplex64);
}

TEST(Dtype, NonTypesAreUnknown) {
  EXPECT_EQ(ParseTorchDtype(""), Dtype::kUnknown);
  EXPECT_EQ(ParseTorchDtype("Scalar"), Dtype::kUnknown);
  EXPECT_EQ(ParseTorchDtype("TensorList"), Dtype::kUnknown);
  EXPECT_EQ(ParseTorchDtype("float "), Dtype::kUnknown);
}

TEST(Dtype, Widths) {
  EXPECT_EQ(DtypeBytes(Dtype::kFp64), 8);
  EXPECT_EQ(DtypeBytes(Dtype::kFp32), 4);
  EXPECT_EQ(DtypeBytes(Dtype::kBf16), 2);
  EXPECT_EQ(DtypeBytes(Dtype::kFp16), 2);
  EXPECT_EQ(DtypeBytes(Dtype::kFp8), 1);
  EXPECT_EQ(DtypeBytes(Dtype::kInt64), 8);
  EXPECT_EQ(DtypeBytes(Dtype::kBool), 1);
  EXPECT_EQ(DtypeBytes(Dtype::kComplex128), 16);
  EXPECT_EQ(DtypeBytes(Dtype::kUnknown), 0);
}

TEST(Dtype, ScalarTypeCodes) {
  EXPECT_EQ(DtypeFromScalarTypeCode(6), Dtype::kFp32);
  EXPECT_EQ(DtypeFromScalarTypeCode(15), Dtype::kBf16);
  EXPECT_EQ(DtypeFromScalarTypeCode(5), Dtype::kFp16);
  EXPECT_EQ(DtypeFromScalarTypeCode(4), Dtype::kInt64);
  EXPECT_EQ(DtypeFromScalarTypeCode(24), Dtype::kFp8);
  EXPECT_EQ(DtypeFromScalarTypeCode(99), Dtype::kUnknown);
  EXPECT_EQ(DtypeName(Dtype::kBf16), "bf16");
}

}  // namespace
}  // namespace plasmient::roofline
