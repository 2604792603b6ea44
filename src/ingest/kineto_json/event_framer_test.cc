#include "ingest/kineto_json/event_framer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
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
Framed Frame(std::string_view text, std::size_t chunk, std::size_t batch_bytes = 16,
             FramerScan scan = FramerScan::kWidest) {
  Framed out;
  EventFramer framer("test.json", batch_bytes, [&](EventBatch& batch) {
    EXPECT_EQ(batch.json.front(), '[');
    EXPECT_EQ(batch.json.back(), ']');
    EXPECT_GE(batch.json.capacity() - batch.json.size(), kBatchPadding);
    for (std::size_t i = 0; i < batch.events(); ++i) out.events.emplace_back(batch.Event(i));
    batch.Clear();
    return true;
  });
  framer.ForceScan(scan);
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

// Events with long strings (so that whole 64-byte blocks are scanned), brackets inside strings,
// escaped quotes and backslashes at varied offsets, nested args, and non-ASCII bytes.
std::string GeneratedTrace(std::mt19937& rng, int events) {
  const std::string_view pieces[] = {"{", "}", "[", "]", "\\\"", "\\\\", "\\n", ",", ":", "\xc3\xa9", " "};
  auto random_string = [&](std::size_t longest) {
    std::string out;
    const std::size_t length = rng() % longest;
    for (std::size_t k = 0; k < length; ++k) {
      out += rng() % 4 == 0 ? pieces[rng() % std::size(pieces)]
                            : std::string_view("abcdefgh").substr(rng() % 8, 1);
    }
    return out;
  };
  std::string text = R"j({"schemaVersion": 1, "deviceProperties": [{"name": "G{P}U"}], "traceEvents": [)j";
  for (int e = 0; e < events; ++e) {
    if (e > 0) text += ", ";
    text += R"j({"ph": "X", "name": ")j" + random_string(200) + R"j(", "args": {"a": [[1, ")j" +
            random_string(100) + R"j("], {"b": {"c": "}"}}]}})j";
    if (rng() % 5 == 0) text += ", 7";
  }
  text += R"j(], "traceName": "t\"n", "ignored": {"deep": [1, "]"]}})j";
  return text;
}

void ExpectSameFraming(std::string_view text, const std::string& what) {
  for (std::size_t chunk :
       {std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{1000}, text.size()}) {
    const Framed widest = Frame(text, chunk, 4096, FramerScan::kWidest);
    for (FramerScan scan : {FramerScan::kSse2, FramerScan::kTokens}) {
      const Framed f = Frame(text, chunk, 4096, scan);
      const std::string where =
          what + ", chunk " + std::to_string(chunk) + ", scan " + std::to_string(static_cast<int>(scan));
      ASSERT_EQ(f.error, widest.error) << where;
      ASSERT_EQ(f.events, widest.events) << where;
      ASSERT_EQ(f.non_objects, widest.non_objects) << where;
      ASSERT_EQ(f.flows, widest.flows) << where;
      ASSERT_EQ(f.top.size(), widest.top.size()) << where;
      for (std::size_t k = 0; k < f.top.size(); ++k) {
        EXPECT_EQ(f.top[k].key, widest.top[k].key) << where;
        EXPECT_EQ(f.top[k].text, widest.top[k].text) << where;
        EXPECT_EQ(f.top[k].offset, widest.top[k].offset) << where;
      }
    }
  }
}

// The widest scan (AVX2 where the processor has it), SSE2 alone and one token at a time frame
// every input alike: whole, cut short anywhere, and with structural bytes written over it.
TEST(EventFramerTest, EveryScanFramesTheSameInputsAlike) {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2") == 0) {
    std::printf("note: this processor has no AVX2: the widest scan is SSE2's\n");
  }
#endif
  std::mt19937 rng(15);
  const std::string whole = GeneratedTrace(rng, 60);
  {
    const Framed f = Frame(whole, whole.size(), 4096, FramerScan::kTokens);
    ASSERT_EQ(f.error, "");
    ASSERT_EQ(f.events.size(), 60u);  // the generator's events, each framed whole
    ASSERT_EQ(f.top.size(), 3u);
  }
  ExpectSameFraming(kTrace, "the inline trace");
  ExpectSameFraming(whole, "the generated trace");
  for (std::size_t cut = 0; cut < whole.size(); cut += 1 + rng() % 97) {
    ExpectSameFraming(std::string_view(whole).substr(0, cut), "cut at " + std::to_string(cut));
  }
  const char structural[] = {'{', '}', '[', ']', '"', '\\', ',', '\0'};
  for (int variant = 0; variant < 150; ++variant) {
    std::string garbled = whole;
    for (int k = 0; k < 1 + variant % 5; ++k) {
      garbled[rng() % garbled.size()] = structural[rng() % std::size(structural)];
    }
    ExpectSameFraming(garbled, "garbled variant " + std::to_string(variant));
  }
}

}  // namespace
}  // namespace plasmient::ingest
