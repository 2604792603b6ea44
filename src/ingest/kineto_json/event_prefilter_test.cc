#include "ingest/kineto_json/event_prefilter.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>

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

// PyTorch's own layout is matched whole; every other spacing token by token: both give the same.
TEST(EventPrefilterTest, KinetoLayoutAndAnyOtherSpacingAgree) {
  const std::pair<const char*, Prefiltered> cases[] = {
      {"\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f\"}", Prefiltered::kPythonFunction},
      {"\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: Linear_0\"}",
       Prefiltered::kParse},
      {"\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\"}", Prefiltered::kParse},
      {"\"ph\": \"X\", \"cat\": \"python_functionality\"}", Prefiltered::kParse},
      {"\"ph\": \"X\", \"name\": \"no cat first\"}", Prefiltered::kParse},
      {"\"ph\": \"s\", \"id\": 4}", Prefiltered::kFlow},
      {"\"ph\": \"i\", \"s\": \"t\"}", Prefiltered::kInstant},
      {"\"ph\": \"M\", \"name\": \"process_name\"}", Prefiltered::kParse},
  };
  for (const auto& [rest, want] : cases) {
    const std::string kineto = std::string("{\n    ") + rest;  // as PyTorch writes it
    const std::string one_line = std::string("{") + rest;      // as json.dumps writes it
    const std::string spaced = std::string("{ \t") + rest;     // the token-by-token path
    EXPECT_EQ(PrefilterEvent(one_line), want) << one_line;
    std::string compact = std::string("{") + rest;
    std::erase(compact, ' ');
    EXPECT_EQ(PrefilterEvent(kineto), want) << kineto;
    EXPECT_EQ(PrefilterEvent(spaced), want) << spaced;
    if (std::string_view(rest).find("nn.Module") == std::string_view::npos) {
      EXPECT_EQ(PrefilterEvent(compact), want) << compact;
    }
  }
  // The whole-layout match needs the whole of it: a cut one falls to the token path and fails.
  EXPECT_EQ(PrefilterEvent("{\n    \"ph\": \"X\", \"cat\": "), Prefiltered::kParse);
  EXPECT_EQ(PrefilterEvent("{\n    \"ph\": \""), Prefiltered::kParse);
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
