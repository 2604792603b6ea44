#include "model/module_hierarchy.h"

#include <gtest/gtest.h>

#include <string>

#include "base/bounded_name.h"

namespace plasmient::model {
namespace {

std::string Frames(std::string_view text) {
  std::vector<ModuleFrame> frames;
  if (!ParseModuleHierarchy(text, &frames)) return "invalid";
  std::string out;
  for (const ModuleFrame& f : frames) out += std::string(f.instance) + ":" + std::string(f.type) + " ";
  return out;
}

TEST(ModuleHierarchy, FramesOutermostFirstWithTheirTypes) {
  EXPECT_EQ(Frames("top(MyNet)::<unknown>.encoder(Encoder)::forward.layer0(Linear)::forward.aten::linear"),
            "top:MyNet encoder:Encoder layer0:Linear ");
  EXPECT_EQ(Frames("top(C)::<unknown>.A0(A)::forward.aten::add"), "top:C A0:A ");
  // A method is optional; a qualified type keeps its dots; the op may hold dots.
  EXPECT_EQ(Frames("top(__torch__.MyNet).fc(Linear).aten::add.Tensor"), "top:__torch__.MyNet fc:Linear ");
  EXPECT_TRUE(ParseModuleHierarchy("m(M)::forward.op", nullptr));
}

TEST(ModuleHierarchy, MalformedTextsGiveNoFrames) {
  for (std::string_view bad : {
           "",                                 // nothing
           "aten::linear",                     // no module frame
           "top(MyNet)::forward",              // no op after the frames
           "top(MyNet)::forward.",             // an empty op
           "top(MyNet)..aten::mm",             // an empty segment
           ".top(MyNet).aten::mm",             // an empty first segment
           "top(MyNet.aten::mm",               // unbalanced (
           "top)MyNet(.aten::mm",              // ) before (
           "top(MyNet)).aten::mm",             // unbalanced )
           "(MyNet).aten::mm",                 // no instance
           "top().aten::mm",                   // no type
           "top(MyNet)x.aten::mm",             // text after the type that is not ::method
           "top(MyNet)::.aten::mm",            // an empty method
           "top(MyNet).enc(Enc)(X).aten::mm",  // two types
           "top(MyNet).aten::mm(",             // unbalanced op
       }) {
    std::vector<ModuleFrame> frames{{"x", "y"}};
    EXPECT_FALSE(ParseModuleHierarchy(bad, &frames)) << bad;
    EXPECT_TRUE(frames.empty()) << bad;
    EXPECT_FALSE(ParseModuleHierarchy(bad, nullptr)) << bad;
  }
}

// Module names from a hierarchy are bounded like other names: a 10 KiB type is cut to
// kMaxModuleNameBytes with the hash of the whole, the text stays a hierarchy of the same frames,
// and a short valid one is kept as it is.
TEST(ModuleHierarchy, LongOrInvalidHierarchiesAreBounded) {
  std::string ok = "top(MyNet)::forward.layer0(Linear)::forward.aten::linear";
  EXPECT_EQ(BoundModuleHierarchy(ok), ok);
  std::string type(10 << 10, 'T');
  std::string text = "top(MyNet)::forward.layer0(" + type + ")::forward.aten::linear";
  std::string bounded = BoundModuleHierarchy(text);
  EXPECT_LE(bounded.size(), kMaxNameBytes);
  EXPECT_TRUE(IsBoundedName(bounded));
  std::vector<ModuleFrame> frames;
  ASSERT_TRUE(ParseModuleHierarchy(bounded, &frames));
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].type, "MyNet");
  EXPECT_LE(frames[1].type.size(), kMaxModuleNameBytes);
  EXPECT_EQ(std::string(frames[1].type), BoundNameTo(type, kMaxModuleNameBytes, type));
  EXPECT_EQ(BoundModuleHierarchy(text), bounded);  // stable
  // Invalid bytes in a frame are replaced, the frame kept.
  std::string bad = BoundModuleHierarchy(
      "top(My\xFF"
      "Net)::forward.aten::mm");
  ASSERT_TRUE(ParseModuleHierarchy(bad, &frames));
  EXPECT_TRUE(IsBoundedName(bad));
  // 3,000 frames: the op and the innermost frames that fit in kMaxNameBytes.
  std::string deep;
  for (int i = 0; i < 3000; ++i) deep += "m" + std::to_string(i) + "(Block).";
  deep += "aten::mm";
  std::string cut = BoundModuleHierarchy(deep);
  ASSERT_TRUE(ParseModuleHierarchy(cut, &frames));
  EXPECT_LE(cut.size(), kMaxNameBytes);
  EXPECT_EQ(frames.back().instance, "m2999");
  EXPECT_TRUE(cut.ends_with("m2999(Block).aten::mm"));
  EXPECT_EQ(BoundModuleHierarchy(std::string(9 << 10, 'x')), "");  // not a hierarchy
}

}  // namespace
}  // namespace plasmient::model
