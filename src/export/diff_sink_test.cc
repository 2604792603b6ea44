#include "export/diff_sink.h"

#include <gtest/gtest.h>
#include <simdjson.h>

namespace plasmient::exporting {
namespace {

verdict::JobVerdict Job(double comm) {
  verdict::JobVerdict j;
  j.job.wall_s = 1;
  j.job.useful_s = 0.6 - comm;
  j.job.loss_s[static_cast<std::size_t>(verdict::Loss::kExposedCommunication)] = comm;
  j.job.loss_s[static_cast<std::size_t>(verdict::Loss::kHostBoundIdle)] = 0.4;
  return j;
}

TEST(DiffSink, JsonSchemaWithTheLargestChangeFirst) {
  verdict::VerdictDiff d = verdict::DiffVerdicts(Job(0.3), Job(0.1), 5);
  std::string json = DiffToJson(d, {"old", "new"});
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  std::string_view schema, first;
  ASSERT_FALSE(doc["schema"].get(schema));
  EXPECT_EQ(schema, kDiffSchema);
  ASSERT_FALSE(doc["losses"].at(0)["key"].get(first));
  EXPECT_EQ(first, "exposed_communication");
  double delta = 0, achieved = 0;
  ASSERT_FALSE(doc["losses"].at(0)["delta"].get(delta));
  ASSERT_FALSE(doc["achieved_fraction"]["delta"].get(achieved));
  EXPECT_NEAR(delta, -0.2, 1e-12);
  EXPECT_NEAR(achieved, 0.2, 1e-12);
  EXPECT_TRUE(doc["step_time_s"]["before"].is_null());  // no steps

  std::string text = RenderDiffTerminal(d, {"old", "new"}, false);
  std::size_t comm = text.find("exposed communication"), idle = text.find("host-bound idle");
  ASSERT_NE(comm, std::string::npos);
  EXPECT_LT(comm, idle);
  EXPECT_NE(text.find("−20.0 pts  better"), std::string::npos) << text;
}

}  // namespace
}  // namespace plasmient::exporting
