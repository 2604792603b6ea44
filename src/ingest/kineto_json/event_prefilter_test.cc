#include "ingest/kineto_json/event_prefilter.h"

#include <gtest/gtest.h>

namespace plasmient::ingest {
namespace {

TEST(EventPrefilterTest, RecognizesKinetoLayouts) {
  EXPECT_EQ(PrefilterEvent(R"({"ph": "f", "id": 1, "cat": "ac2g"})"), Prefiltered::kFlow);
  EXPECT_EQ(PrefilterEvent("{\n    \"ph\": \"s\", \"id\": 4}"), Prefiltered::kFlow);
  EXPECT_EQ(PrefilterEvent(R"({"ph":"t"})"), Prefiltered::kFlow);
  EXPECT_EQ(PrefilterEvent(R"({"ph": "i", "s": "t", "name": "[memory]"})"), Prefiltered::kInstant);
  EXPECT_EQ(PrefilterEvent(R"({"ph": "X", "cat": "python_function", "name": "f"})"),
            Prefiltered::kPythonFunction);
}

TEST(EventPrefilterTest, LeavesEverythingElseToTheParser) {
  EXPECT_EQ(PrefilterEvent(R"({"ph": "X", "cat": "kernel"})"), Prefiltered::kParse);
  EXPECT_EQ(PrefilterEvent(R"({"ph": "X", "cat": "python_functionality"})"), Prefiltered::kParse);
  EXPECT_EQ(PrefilterEvent(R"({"name": "process_name", "ph": "M"})"), Prefiltered::kParse);
  EXPECT_EQ(PrefilterEvent(R"({"ph": "ff"})"), Prefiltered::kParse);
  EXPECT_EQ(PrefilterEvent(R"({"ph": "C"})"), Prefiltered::kParse);
  EXPECT_EQ(PrefilterEvent(R"({"ph": )"), Prefiltered::kParse);
  EXPECT_EQ(PrefilterEvent(R"({"ph": "f)"), Prefiltered::kParse);
  EXPECT_EQ(PrefilterEvent(""), Prefiltered::kParse);
  EXPECT_EQ(PrefilterEvent(R"({"ph\u0022: "f"})"), Prefiltered::kParse);
}

}  // namespace
}  // namespace plasmient::ingest
