#include "export/json_writer.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

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

// Elements written through Element() into their own buffers, appended in order, are the bytes
// one writer gives: first and later elements of arrays, and values after keys.
TEST(JsonWriter, ElementsWrittenApartJoinAsOneDocument) {
  const auto element = [](JsonWriter& w, int i) {
    w.BeginObject().Field("i", i).Key("list").BeginArray().Int(i).String("x").EndArray().EndObject();
  };
  for (bool pretty : {true, false}) {
    std::string whole;
    JsonWriter one(whole, pretty);
    one.BeginObject().Key("a").BeginArray();
    for (int i = 0; i < 3; ++i) element(one, i);
    one.EndArray().Key("b");
    element(one, 9);
    one.EndObject();

    std::string joined;
    JsonWriter w(joined, pretty);
    w.BeginObject().Key("a").BeginArray();
    std::string parts[3];
    std::vector<JsonWriter> writers;
    for (auto& part : parts) writers.push_back(w.Element(part));
    for (int i = 2; i >= 0; --i) element(writers[static_cast<std::size_t>(i)], i);  // any order
    for (const auto& part : parts) joined += part;
    w.EndArray().Key("b");
    std::string after_key;
    JsonWriter b = w.Element(after_key);
    element(b, 9);
    joined += after_key;
    w.EndObject();
    EXPECT_EQ(joined, whole) << pretty;
  }
}

// JSON's escapes one byte at a time, written plainly: what AppendEscaped's eight-byte steps must
// give for every string.
std::string EscapedByteByByte(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

TEST(JsonWriter, EveryByteAtEveryPlaceOfAWordIsEscapedAsOneAtATime) {
  for (std::size_t size : {1, 7, 8, 9, 16, 17, 25}) {
    for (std::size_t at = 0; at < size; ++at) {
      for (int b = 0; b < 256; ++b) {
        std::string s(size, 'a');
        s[at] = static_cast<char>(b);
        if (at + 1 < size) s[at + 1] = static_cast<char>(0xff - b);  // UTF-8 bytes and borrows beside it
        std::string out;
        JsonWriter::AppendEscaped(out, s);
        ASSERT_EQ(out, EscapedByteByByte(s)) << "size " << size << ", byte " << b << " at " << at;
      }
    }
  }
  std::string out;
  JsonWriter::AppendEscaped(out, "");
  EXPECT_EQ(out, "\"\"");
}

TEST(JsonWriter, NumbersAreTheirShortestText) {
  for (double v : {0.0, -0.0, 0.1, 1.0 / 3, 1e21, 1e-7, 123456789.0, std::numeric_limits<double>::max(),
                   -std::numeric_limits<double>::max(), std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::min()}) {
    std::string out;
    JsonWriter(out).Number(v);
    EXPECT_EQ(out, fmt::format("{}", v));
  }
  for (std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::numeric_limits<std::int64_t>::max(),
                         std::numeric_limits<std::int64_t>::min()}) {
    std::string out;
    JsonWriter(out).Int(v);
    EXPECT_EQ(out, fmt::format("{}", v));
  }
}

}  // namespace
}  // namespace plasmient::exporting
