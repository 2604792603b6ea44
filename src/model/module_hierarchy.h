// The "Module Hierarchy" argument some Kineto exports put on cpu_op events (the profiler's
// with_modules for TorchScript and mobile modules): the chain of module calls around the op,
// outermost first, then the op itself, joined by '.':
//   top(MyNet)::<unknown>.encoder(Encoder)::forward.layer0(Linear)::forward.aten::linear
// Each module frame is `instance(Type)` with an optional `::method`; a type may itself hold
// dots ("__torch__.MyNet"), so frames split only at dots outside parentheses (docs/layers.md).
#pragma once

#include <string_view>
#include <vector>

namespace plasmient::model {

struct ModuleFrame {
  std::string_view instance;  // "encoder"
  std::string_view type;      // "Encoder"
};

// The module frames of `text`, outermost first, into `frames` (cleared first) when given.
// False, with `frames` left empty, when the text is not of that form: no module frame, an empty
// frame, instance or type, unbalanced parentheses, text after the type other than `::method`.
// Validating (frames == nullptr) allocates nothing.
bool ParseModuleHierarchy(std::string_view text, std::vector<ModuleFrame>* frames);

}  // namespace plasmient::model
