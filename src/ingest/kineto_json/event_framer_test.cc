#include "ingest/kineto_json/event_framer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace plasmient::ingest {
namespace {

struct Framed {
  std::vector<std::string> events;
  std::vector<TopLevelValue> top;
  std::int64_t non_objects = 0;
  std::int64_t flows = 0;
  std::string error;
};

// Frames `text` fed in chunks of `chunk` bytes, with tiny batches so batching is exercised.
Framed Frame(std::string_view text, std::size_t chunk, std::size_t batch_bytes = 16) {
  Framed out;
  EventFramer framer("test.json", batch_bytes, [&](EventBatch& batch) {
    EXPECT_EQ(batch.json.front(), '[');
    EXPECT_EQ(batch.json.back(), ']');
    EXPECT_GE(batch.json.capacity() - batch.json.size(), kBatchPadding);
    for (std::size_t i = 0; i < batch.events(); ++i) out.events.emplace_back(batch.Event(i));
    batch.Clear();
    return true;
  });
  for (std::size_t pos = 0; pos < text.size(); pos += chunk) {
    if (auto s = framer.Feed(text.substr(pos, chunk)); !s) {
      out.error = s.error().message;
      return out;
    }
  }
  if (auto s = framer.Finish(); !s) out.error = s.error().message;
  out.top = framer.top_level();
  out.non_objects = framer.non_object_entries();
  out.flows = framer.prefiltered().flows;
  return out;
}

constexpr std::string_view kTrace = R"j({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "GPU {x}"}],
  "traceEvents": [
    {"ph": "X", "name": "a{b}[c]", "args": {"s": "q\"}{", "n": [1, {"z": 2}]}},
    {"ph": "M", "name": "back\\slash\\"},
    {"ph": "f", "id": "{"},
    7,
    {}
  ],
  "baseTimeNanoseconds": 1700000000000000000,
  "traceName": "t\"n",
  "ignored": {"deep": [1, 2, "]"]}
}
)j";

TEST(EventFramerTest, FramesEventsAtEveryChunkSize) {
  const std::vector<std::string> expected = {
      R"j({"ph": "X", "name": "a{b}[c]", "args": {"s": "q\"}{", "n": [1, {"z": 2}]}})j",
      R"j({"ph": "M", "name": "back\\slash\\"})j",
      "{}",
  };
  for (std::size_t chunk = 1; chunk <= kTrace.size(); ++chunk) {
    Framed f = Frame(kTrace, chunk);
    ASSERT_EQ(f.error, "") << chunk;
    ASSERT_EQ(f.events, expected) << chunk;
    EXPECT_EQ(f.non_objects, 1);
    EXPECT_EQ(f.flows, 1);
    ASSERT_EQ(f.top.size(), 4u) << chunk;
    EXPECT_EQ(f.top[0].key, "schemaVersion");
    EXPECT_EQ(f.top[0].text, "1");
    EXPECT_EQ(f.top[1].key, "deviceProperties");
    EXPECT_EQ(f.top[1].text, R"j([{"id": 0, "name": "GPU {x}"}])j");
    EXPECT_EQ(f.top[2].key, "baseTimeNanoseconds");
    EXPECT_EQ(f.top[2].text, "1700000000000000000");
    EXPECT_EQ(f.top[3].text, R"j("t\"n")j");
    EXPECT_EQ(f.top[1].offset, static_cast<std::int64_t>(kTrace.find("[{\"id\"")));
  }
}

TEST(EventFramerTest, BracketsAndEscapesAtEveryBlockOffset) {
  // Strings full of brackets, with an escaped quote or backslash moved across the 64-byte
  // blocks the scanner works in, inside nested args.
  for (std::size_t at = 0; at < 140; ++at) {
    std::string filler(at, '}');
    for (std::size_t k = 0; k < filler.size(); k += 3) filler[k] = '[';
    std::string name = filler + (at % 2 ? "\\\"" : "\\\\") + "{]" + std::string(70, 'x');
    std::string event = R"j({"ph": "X", "name": ")j" + name + R"j(", "args": {"a": [[1, 2], {"b": "}"}]}})j";
    std::string text = R"j({"traceEvents": [)j" + event + "," + event + "]}";
    for (std::size_t chunk :
         {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{100}, text.size()}) {
      Framed f = Frame(text, chunk, 1 << 20);
      ASSERT_EQ(f.error, "") << at << " " << chunk;
      ASSERT_EQ(f.events.size(), 2u) << at << " " << chunk;
      ASSERT_EQ(f.events[0], event) << at << " " << chunk;
      ASSERT_EQ(f.events[1], event) << at << " " << chunk;
    }
  }
}

TEST(EventFramerTest, BareArrayOfEventsIsAccepted) {
  Framed f = Frame(R"j([{"ph":"X"}, {"ph":"M"}])j", 3);
  EXPECT_EQ(f.error, "");
  EXPECT_EQ(f.events.size(), 2u);
}

TEST(EventFramerTest, StructuralErrorsNameFileAndByte) {
  struct Case {
    std::string_view text;
    std::string_view problem;
  };
  const Case cases[] = {
      {"", "empty input"},
      {"   \n", "empty input"},
      {"hello", "not a JSON trace"},
      {R"j({"traceEvents": [{"ph": "X"})j", "traceEvents array is not closed"},
      {R"j({"traceEvents": [{"ph": "X", "name": "abc)j", "traceEvents array is not closed"},
      {R"j({"traceEvents": []  )j", "top-level object is not closed"},
      {R"j({"traceEvents": [], "x": [1, 2)j", "top-level object is not closed"},
      {R"j({"other": 1})j", "no traceEvents array"},
      {R"j({"traceEvents": 5})j", "traceEvents is not an array"},
      {R"j({"traceEvents": []} trailing)j", "data after the end"},
      {R"j({"a" 1, "traceEvents": []})j", "expected ':'"},
      {R"j({"traceEvents": [}]})j", "'}' inside the traceEvents array"},
  };
  for (const Case& c : cases) {
    for (std::size_t chunk : {1u, 5u, 1000u}) {
      Framed f = Frame(c.text, chunk);
      EXPECT_NE(f.error.find(c.problem), std::string::npos) << c.text << " -> " << f.error;
      EXPECT_NE(f.error.find("test.json: "), std::string::npos) << f.error;
      EXPECT_NE(f.error.find(" at byte "), std::string::npos) << f.error;
    }
  }
}

TEST(EventFramerTest, ErrorOffsetPointsAtTheProblem) {
  Framed f = Frame("  x", 1);
  EXPECT_NE(f.error.find("at byte 2"), std::string::npos) << f.error;
  std::string_view cut = R"j({"traceEvents": [{"ph": "X"})j";
  f = Frame(cut, 4);
  EXPECT_NE(f.error.find("at byte " + std::to_string(cut.size())), std::string::npos) << f.error;
}

}  // namespace
}  // namespace plasmient::ingest
