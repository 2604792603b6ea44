#include "export/json_writer.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace plasmient::exporting {
namespace {

// The bytes fmt's "{}" writes for `value` (the JSON's numbers before WriteShortestDouble).
std::string FmtShortest(double value) {
  char buf[64];
  return std::string(buf, fmt::format_to_n(buf, sizeof buf, "{}", value).out);
}

std::string Shortest(double value) {
  char buf[kShortestDoubleChars];
  return std::string(buf, WriteShortestDouble(value, buf));
}

// WriteShortestDouble against fmt's "{}" on over two million finite doubles: random bit patterns,
// random magnitudes over the whole range, subnormals, integers, powers of ten and their neighbours
// (where the notation changes), and the extremes, each of the others with either sign.
TEST(WriteShortestDouble, WritesWhatFmtWritesForEveryKindOfDouble) {
  using limits = std::numeric_limits<double>;
  std::vector<double> values = {0.0, 1.0, 0.1, 0.5, 2.5, 1e-4, 1e16, 9007199254740992.0};
  values.insert(values.end(), {limits::max(), limits::min(), limits::denorm_min(), limits::epsilon()});
  for (int e = -324; e <= 308; ++e) {
    const double p = std::strtod(fmt::format("1e{}", e).c_str(), nullptr);
    for (double x : {p, 2 * p, 5 * p, 9.5 * p}) {
      values.push_back(x);
      double below = x, above = x;
      for (int step = 0; step < 4; ++step) {
        below = std::nextafter(below, 0.0);
        above = std::nextafter(above, limits::infinity());
        values.insert(values.end(), {below, above});
      }
    }
  }
  std::mt19937_64 rng(20261201);
  for (int i = 0; i < 100'000; ++i) {
    values.push_back(static_cast<double>(i));
    values.push_back(static_cast<double>(rng() >> (rng() % 64)));  // integers of every size
  }
  std::uniform_real_distribution<double> mantissa(1, 10);
  std::uniform_int_distribution<int> exponent(-330, 310);
  for (int i = 0; i < 300'000; ++i) values.push_back(mantissa(rng) * std::pow(10.0, exponent(rng)));
  for (int i = 0; i < 100'000; ++i) values.push_back(std::bit_cast<double>(rng() >> 12));  // subnormals
  std::size_t checked = 0, differ = 0;
  auto check = [&](double x) {
    if (!std::isfinite(x)) return;
    ++checked;
    if (std::string want = FmtShortest(x), got = Shortest(x); got != want && ++differ <= 5) {
      ADD_FAILURE() << std::bit_cast<std::uint64_t>(x) << ": fmt writes " << want << ", we write " << got;
    }
  };
  for (double v : values) check(v), check(-v);
  for (int i = 0; i < 1'000'000; ++i) check(std::bit_cast<double>(rng()));
  EXPECT_EQ(differ, 0u) << "of " << checked;
  EXPECT_GT(checked, 2'000'000u);
  EXPECT_EQ(Shortest(1e-5), "1e-05");
  EXPECT_EQ(Shortest(1.5e16), "1.5e+16");
  EXPECT_EQ(Shortest(1e15), "1000000000000000");
  EXPECT_EQ(Shortest(0.0001), "0.0001");
  EXPECT_EQ(Shortest(-0.0), "-0");
}

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
  for (std::size_t size : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 20, 24, 25, 31, 32, 33}) {
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

// The layout written plainly, one piece at a time: a line break and two spaces per level before
// every member and element, ", " never, ": " after keys (":" compact).
class PlainLayout {
 public:
  explicit PlainLayout(bool pretty) : pretty_(pretty) {}
  void Open(char c) {
    Before();
    out += c;
    empty_.push_back(true);
  }
  void Close(char c) {
    bool empty = empty_.back();
    empty_.pop_back();
    if (!empty) Newline();
    out += c;
  }
  void Key(std::string_view k) {
    Before();
    out += EscapedByteByByte(k);
    out += pretty_ ? ": " : ":";
    after_key_ = true;
  }
  void Value(std::string_view text) {
    Before();
    out += text;
  }
  std::string out;

 private:
  void Before() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (empty_.empty()) return;
    if (!empty_.back()) out += ',';
    empty_.back() = false;
    Newline();
  }
  void Newline() {
    if (!pretty_) return;
    out += '\n';
    out.append(empty_.size() * 2, ' ');
  }
  bool pretty_;
  std::vector<bool> empty_;
  bool after_key_ = false;
};

// Keys short and long, plain and needing escapes, and every kind of value, at depths on both
// sides of the indentation the writer assembles on the stack: the bytes of the plain layout.
TEST(JsonWriter, EveryValueAtEveryDepthIsLaidOutAsPiecesWouldBe) {
  const std::string long_key(70, 'k');
  // Keys with an escape first, last, alone, and at the end of a 16- or 32-byte block.
  const std::vector<std::string> keys = {"a",
                                         "losses",
                                         "compute_inefficiency",
                                         "q\"uote",
                                         "tab\there",
                                         "end\"",
                                         "\x1f",
                                         std::string(15, 'k') + "\\",
                                         std::string(31, 'k') + "\"",
                                         long_key,
                                         long_key + "\n",
                                         std::string(60, 'x') + "\x01"};
  for (bool pretty : {true, false}) {
    for (std::size_t depth : {0, 1, 2, 31, 32, 33, 40}) {
      std::string out;
      JsonWriter w(out, pretty);
      PlainLayout want(pretty);
      std::vector<char> closers;  // arrays, and objects holding an array under a key
      while (closers.size() < depth) {
        if (closers.size() % 2 == 0) {
          w.BeginArray();
          want.Open('[');
          closers.push_back(']');
        } else {
          const std::string& key = keys[closers.size() % keys.size()];
          w.BeginObject().Key(key);
          want.Open('{');
          want.Key(key);
          closers.push_back('}');
          w.BeginArray();
          want.Open('[');
          closers.push_back(']');
        }
      }
      w.BeginObject();
      want.Open('{');
      for (std::size_t k = 0; k < keys.size(); ++k) {
        w.Key(keys[k]);
        want.Key(keys[k]);
        switch (k % 6) {
          case 0:
            w.Number(0.25 * static_cast<double>(k));
            want.Value(fmt::format("{}", 0.25 * static_cast<double>(k)));
            break;
          case 1:
            w.Int(-static_cast<std::int64_t>(k));
            want.Value(fmt::format("{}", -static_cast<std::int64_t>(k)));
            break;
          case 2:
            w.String(keys[k]);
            want.Value(EscapedByteByByte(keys[k]));
            break;
          case 3:
            w.Bool(k % 2 == 1);
            want.Value(k % 2 == 1 ? "true" : "false");
            break;
          case 4:
            w.Null();
            want.Value("null");
            break;
          default:
            w.BeginArray().Number(1e300).EndArray();
            want.Open('[');
            want.Value("1e+300");
            want.Close(']');
        }
      }
      // The same keys through Field, which writes a key and its value together, in an object of
      // their own that starts with the keys that need escapes.
      w.Key("fields").BeginObject();
      want.Key("fields");
      want.Open('{');
      for (std::size_t k = keys.size(); k-- > 0;) {
        const double x = k % 2 == 0 ? 1.0 / static_cast<double>(k + 3) : std::nan("");
        w.Field(keys[k], x).Field(keys[k], static_cast<std::int64_t>(k) << 40).Field(keys[k], k % 3 == 0);
        w.Field(keys[k], static_cast<int>(k));
        for (const std::string& text : {std::isnan(x) ? std::string("null") : fmt::format("{}", x),
                                        fmt::format("{}", static_cast<std::int64_t>(k) << 40),
                                        std::string(k % 3 == 0 ? "true" : "false"), fmt::format("{}", k)}) {
          want.Key(keys[k]);
          want.Value(text);
        }
      }
      w.EndObject();
      want.Close('}');
      w.EndObject();
      want.Close('}');
      for (; !closers.empty(); closers.pop_back()) {
        if (closers.back() == ']') {
          w.EndArray();
        } else {
          w.EndObject();
        }
        want.Close(closers.back());
      }
      ASSERT_EQ(out, want.out) << "pretty " << pretty << ", depth " << depth;
      simdjson::dom::parser parser;
      simdjson::dom::element doc;
      EXPECT_EQ(parser.parse(out).get(doc), simdjson::SUCCESS) << out;
    }
  }
}

}  // namespace
}  // namespace plasmient::exporting
