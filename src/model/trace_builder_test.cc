#include "model/trace_builder.h"

#include "model/module_hierarchy.h"

#include <gtest/gtest.h>

#include "base/bounded_name.h"

namespace plasmient::model {
namespace {

TEST(TraceBuilder, InternsNamesAndClampsNegativeDurations) {
  TraceBuilder b;
  b.AddGpu({.start_ns = 100, .end_ns = 50, .name = "k", .correlation = 7});
  b.AddGpu({.start_ns = 200, .end_ns = 300, .name = "k"});
  Trace t = std::move(b).Finish();
  ASSERT_EQ(t.gpu.size(), 2u);
  EXPECT_EQ(t.gpu.end_ns[0], 100);  // clamped, never negative
  EXPECT_EQ(t.gpu.name[0], t.gpu.name[1]);
  EXPECT_EQ(t.Str(t.gpu.name[0]), "k");
  EXPECT_EQ(t.gpu.correlation[1], kNoId);
  EXPECT_EQ(t.gpu.pid[1], kNoId);
}

// Issue 36: 6 MiB kernel names made /metrics 503 MB and the store 353 MB larger, and invalid
// UTF-8 in native names made --json invalid. The model keeps bounded, valid names.
TEST(TraceBuilder, NamesAreBoundedAndValidUtf8) {
  TraceBuilder b;
  std::string huge(6 << 20, 'k');
  for (int i = 0; i < 3; ++i) b.AddGpu({.start_ns = i, .end_ns = i + 1, .name = huge});
  b.AddCpuOp({.start_ns = 0, .end_ns = 1, .name = huge + "op"});
  b.AddApi({.start_ns = 0, .end_ns = 1, .name = "cudaLaunch\xFFKernel"});
  Trace t = std::move(b).Finish();
  EXPECT_EQ(t.gpu.name[0], t.gpu.name[2]);  // one name, cut once, the same each time
  EXPECT_LE(t.Str(t.gpu.name[0]).size(), kMaxNameBytes);
  EXPECT_LE(t.Str(t.cpu.name[0]).size(), kMaxNameBytes);
  EXPECT_NE(t.Str(t.gpu.name[0]), t.Str(t.cpu.name[0]));
  EXPECT_EQ(t.Str(t.api.name[0]), "cudaLaunch\xEF\xBF\xBDKernel");
  EXPECT_LT(t.strings.bytes(), 4 * kMaxNameBytes);
}

// A Module Hierarchy argument with a 1 MiB module type enters the model bounded, still a hierarchy.
TEST(TraceBuilder, ModuleHierarchiesAreBounded) {
  TraceBuilder b;
  std::string hierarchy = "top(Net)::forward.layer(" + std::string(1 << 20, 'T') + ")::forward.aten::mm";
  b.AddCpuOp({.start_ns = 0, .end_ns = 1, .name = "aten::mm", .module_hierarchy = hierarchy});
  Trace t = std::move(b).Finish();
  std::string_view kept = t.Str(t.cpu.module_hierarchy[0]);
  EXPECT_LE(kept.size(), kMaxNameBytes);
  EXPECT_EQ(kept, BoundModuleHierarchy(hierarchy));
  EXPECT_TRUE(kept.starts_with("top(Net)::forward.layer(TTT"));
}

TEST(TraceBuilder, ShiftTimeMovesEveryTable) {
  TraceBuilder b;
  b.AddGpu({.start_ns = 1, .end_ns = 2});
  b.AddApi({.start_ns = 3, .end_ns = 4});
  b.AddCpuOp({.start_ns = 5, .end_ns = 6});
  b.AddSample({.ts_ns = 7});
  EXPECT_TRUE(b.ShiftTime(1000));
  Trace t = std::move(b).Finish();
  EXPECT_EQ(t.gpu.start_ns[0], 1001);
  EXPECT_EQ(t.api.end_ns[0], 1004);
  EXPECT_EQ(t.cpu.start_ns[0], 1005);
  EXPECT_EQ(t.samples.ts_ns[0], 1007);
  EXPECT_EQ(t.info.base_time_ns, 1000);
}

TEST(TraceBuilder, ShiftTimeThatWouldOverflowMovesNothing) {
  TraceBuilder b;
  b.AddGpu({.start_ns = 1, .end_ns = 2});
  b.AddCpuOp({.start_ns = 8'851'138'820'233'472'000, .end_ns = 8'851'138'820'233'472'001});
  EXPECT_FALSE(b.ShiftTime(1'775'078'550'000'000'000));
  Trace t = std::move(b).Finish();
  EXPECT_EQ(t.gpu.start_ns[0], 1);
  EXPECT_EQ(t.cpu.start_ns[0], 8'851'138'820'233'472'000);
  EXPECT_EQ(t.info.base_time_ns, 0);
}

TEST(DataQuality, CataloguedAndMergeable) {
  DataQuality a, b;
  a.Add(Dq::kKernelNoLaunch, 3);
  b.Add(Dq::kKernelNoLaunch, 2);
  b.Add(Dq::kDuplicateCorrelation);
  a.Merge(b);
  auto nz = a.NonZero();
  ASSERT_EQ(nz.size(), 2u);
  EXPECT_EQ(nz[0].second, 5);
  EXPECT_EQ(Describe(Dq::kDuplicateCorrelation).name, "duplicate_correlation");
  EXPECT_EQ(Describe(Dq::kExternalIdEqualsCorrelation).name, "external_id_equals_correlation");
}

TEST(DataQuality, FirstByteOffsetIsTheSmallestSeenAndStaysWithItsFile) {
  DataQuality a;
  EXPECT_EQ(a.FirstOffset(Dq::kMalformedEvent), -1);
  a.AddAt(Dq::kMalformedEvent, 900);
  a.AddAt(Dq::kMalformedEvent, 120);
  a.AddAt(Dq::kMalformedEvent, 400);
  a.Add(Dq::kMalformedEvent);  // no offset known: counted only
  EXPECT_EQ(a.Get(Dq::kMalformedEvent), 4);
  EXPECT_EQ(a.FirstOffset(Dq::kMalformedEvent), 120);
  DataQuality job;
  job.Merge(a);
  EXPECT_EQ(job.Get(Dq::kMalformedEvent), 4);
  EXPECT_EQ(job.FirstOffset(Dq::kMalformedEvent), -1);  // an offset means nothing across files
}

}  // namespace
}  // namespace plasmient::model
