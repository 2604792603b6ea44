#include "export/json_writer.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>

namespace plasmient::exporting {
namespace {

TEST(JsonWriter, EscapesAndNestsIntoValidJson) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Field("name", "void at::native::kernel<\"q\"\\n>\n\x01");
  w.Field("nan", std::nan(""));
  w.Key("list").BeginArray().Int(1).Number(2.5).Bool(true).Null().EndArray();
  w.Key("empty").BeginObject().EndObject();
  w.EndObject();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(out).get(doc), simdjson::SUCCESS) << out;
  std::string_view name;
  ASSERT_EQ(doc["name"].get(name), simdjson::SUCCESS);
  EXPECT_EQ(name, "void at::native::kernel<\"q\"\\n>\n\x01");
  EXPECT_TRUE(doc["nan"].is_null());
  EXPECT_EQ(doc["list"].get_array().size(), 4u);
}

}  // namespace
}  // namespace plasmient::exporting
