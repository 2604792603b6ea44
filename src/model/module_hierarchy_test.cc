#include "model/module_hierarchy.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace plasmient::model
