// The "Module Hierarchy" argument some Kineto exports put on cpu_op events (the profiler's
// with_modules for TorchScript and mobile modules): the chain of module calls around the op,
// outermost first, then the op itself, joined by '.':
//   top(MyNet)::<unknown>.encoder(Encoder)::forward.layer0(Linear)::forward.aten::linear
// Each module frame is `instance(Type)` with an optional `::method`; a type may itself hold
// dots ("__torch__.MyNet"), so frames split only at dots outside parentheses (docs/layers.md).
#pragma once

#include <string>
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

// The hierarchy as the model keeps it, bounded like a name (base/bounded_name.h): `text` itself
// when it is valid UTF-8 of at most kMaxNameBytes; else each frame's instance, type and method
// and the op cut to kMaxModuleNameBytes (BoundNameTo: valid UTF-8, a cut one ending in the hash of
// the whole), keeping the op and as many of the innermost frames as fit in kMaxNameBytes. Empty
// when such a text is not a hierarchy. The layer tree's module types come from these frames.
inline constexpr std::size_t kMaxModuleNameBytes = 256;
std::string BoundModuleHierarchy(std::string_view text);

}  // namespace plasmient::model
