#include "ingest/own_outputs.h"

#include <gtest/gtest.h>

namespace plasmient::ingest {
namespace {

TEST(OwnOutputs, PerfettoOutputIsRefusedByItsHead) {
  auto why =
      RefusalOf("p.json", std::string(kPerfettoOutputHead) + R"("displayTimeUnit":"ns","traceEvents":[)");
  ASSERT_TRUE(why);
  EXPECT_EQ(*why,
            "p.json: this is Plasmient's own Perfetto output (written by analyze --perfetto), not a trace: "
            "give the profiler's trace");
  EXPECT_TRUE(IsOwnOutputRefusal(*why));
  // As earlier versions wrote it, with otherData last.
  auto earlier =
      RefusalOf("old.json",
                "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n{\"ts\":0,\"ph\":\"M\",\"pid\":3,"
                "\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"rank 3 \xC2\xB7 NVIDIA H100\"}},");
  ASSERT_TRUE(earlier);
  EXPECT_NE(earlier->find("Perfetto output (written by analyze --perfetto)"), std::string::npos);
}

TEST(OwnOutputs, VerdictAndOtherSchemasAreRefused) {
  auto verdict =
      RefusalOf("v.json", "\xEF\xBB\xBF{\n  \"schema\": \"plasmient.verdict/1\",\n  \"inputs\": [");
  ASSERT_TRUE(verdict);
  EXPECT_EQ(*verdict,
            "v.json: this is Plasmient's own verdict JSON (written by analyze --json), not a trace: give the "
            "profiler's trace");
  auto whatif = RefusalOf("w.json", R"({"schema":"plasmient.whatif/1","current":{)");
  ASSERT_TRUE(whatif);
  EXPECT_NE(whatif->find("what-if JSON (written by whatif --json)"), std::string::npos);
  auto later = RefusalOf("n.json", R"({"schema": "plasmient.fleet/2"})");  // a schema not listed
  ASSERT_TRUE(later);
  EXPECT_NE(later->find("own plasmient.fleet JSON"), std::string::npos);
}

TEST(OwnOutputs, TracesAndOtherJsonPass) {
  // A Kineto trace, a Chrome trace that keeps otherData first from another producer, a schema key
  // that is not the first, a cut-short head, and a trace whose first event names Plasmient.
  EXPECT_FALSE(RefusalOf("k.json", "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": ["));
  EXPECT_FALSE(RefusalOf("c.json", R"({"otherData":{"producer":"other"},"traceEvents":[)"));
  EXPECT_FALSE(RefusalOf("n.json",
                         "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n{\"ts\":0,\"ph\":\"X\",\"pid\":1,"
                         "\"tid\":2,\"name\":\"gemm\",\"dur\":4}"));
  EXPECT_FALSE(RefusalOf("s.json", R"({"traceEvents":[],"schema":"plasmient.verdict/1"})"));
  EXPECT_FALSE(RefusalOf("h.json", R"({"schema": "plasmient.verd)"));
  EXPECT_FALSE(RefusalOf("t.json", R"([{"name":"plasmient.verdict/1","ph":"X"}])"));
  EXPECT_FALSE(IsOwnOutputRefusal("t.json: no traceEvents array in the top-level object at byte 12"));
}

TEST(OwnOutputs, NsightReportsAreToldHowToExport) {
  EXPECT_EQ(UnexportedReportOf("runs/step 3.nsys-rep"),
            "runs/step 3.nsys-rep: an Nsight Systems report; export it first: nsys export --type sqlite -o "
            "runs/step 3.sqlite runs/step 3.nsys-rep");
  EXPECT_EQ(UnexportedReportOf("old.qdrep"),
            "old.qdrep: an Nsight Systems report; export it first: nsys export --type sqlite -o old.sqlite "
            "old.qdrep");
  EXPECT_FALSE(UnexportedReportOf("run.sqlite"));
  EXPECT_FALSE(UnexportedReportOf("run.nsys-rep.txt"));
  EXPECT_TRUE(IsNsightReportName("a.nsys-rep"));
  EXPECT_FALSE(IsNsightReportName("a.nsys"));
}

}  // namespace
}  // namespace plasmient::ingest
