#include "model/module_hierarchy.h"

#include "base/bounded_name.h"

namespace plasmient::model {
namespace {

// One module frame, `instance(Type)` or `instance(Type)::method`, into `frame`.
bool ParseFrame(std::string_view text, ModuleFrame* frame) {
  std::size_t open = text.find('(');
  if (open == 0 || open == std::string_view::npos ||
      text.substr(0, open).find(')') != std::string_view::npos) {
    return false;
  }
  int depth = 0;
  std::size_t close = std::string_view::npos;
  for (std::size_t i = open; i < text.size() && close == std::string_view::npos; ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && --depth == 0) close = i;
  }
  if (close == std::string_view::npos || close == open + 1) return false;
  std::string_view method = text.substr(close + 1);
  if (!method.empty() && (!method.starts_with("::") || method.size() == 2)) return false;
  if (method.find_first_of("()") != std::string_view::npos) return false;
  frame->instance = text.substr(0, open);
  frame->type = text.substr(open + 1, close - open - 1);
  return true;
}

// Parentheses balance from `from` to the end of `text`.
bool Balanced(std::string_view text, std::size_t from) {
  int depth = 0;
  for (std::size_t i = from; i < text.size() && depth >= 0; ++i)
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
  return depth == 0;
}

// The text's segments, split at the dots outside parentheses.
std::vector<std::string_view> Segments(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = begin;
    for (int depth = 0; end < text.size() && (text[end] != '.' || depth != 0); ++end) {
      depth += text[end] == '(' ? 1 : text[end] == ')' ? -1 : 0;
    }
    out.push_back(text.substr(begin, end - begin));
    if (end >= text.size()) break;
    begin = end + 1;
  }
  return out;
}

std::string BoundPart(std::string_view part) { return BoundNameTo(part, kMaxModuleNameBytes, part); }

}  // namespace

std::string BoundModuleHierarchy(std::string_view text) {
  if (IsBoundedName(text)) return std::string(text);
  std::vector<std::string_view> segments = Segments(text);
  if (segments.size() < 2) return {};
  std::vector<std::string> bounded;  // innermost first: the op, then its frames outwards
  bounded.push_back(BoundPart(segments.back()));
  for (std::size_t i = segments.size() - 1; i-- > 0;) {
    ModuleFrame frame;
    if (!ParseFrame(segments[i], &frame)) return {};
    std::string_view method =
        segments[i].substr(frame.type.data() + frame.type.size() + 1 - segments[i].data());
    bounded.push_back(BoundPart(frame.instance) + "(" + BoundPart(frame.type) + ")" + BoundPart(method));
  }
  std::size_t keep = 1, bytes = bounded[0].size();
  while (keep < bounded.size() && bytes + 1 + bounded[keep].size() <= kMaxNameBytes)
    bytes += 1 + bounded[keep++].size();
  std::string out;
  for (std::size_t i = keep; i-- > 0;) out += bounded[i] + (i ? "." : "");
  return ParseModuleHierarchy(out, nullptr) ? out : std::string();
}

bool ParseModuleHierarchy(std::string_view text, std::vector<ModuleFrame>* frames) {
  if (frames != nullptr) frames->clear();
  std::size_t begin = 0, modules = 0;
  while (begin < text.size()) {
    // The segment ends at the first dot outside parentheses.
    std::size_t end = begin;
    for (int depth = 0; end < text.size() && (text[end] != '.' || depth != 0); ++end) {
      depth += text[end] == '(' ? 1 : text[end] == ')' ? -1 : 0;
    }
    std::string_view segment = text.substr(begin, end - begin);
    if (segment.empty()) break;
    if (segment.find('(') == std::string_view::npos) {  // the op: the rest of the text
      if (modules == 0 || !Balanced(text, begin)) break;
      return true;
    }
    ModuleFrame frame;
    if (!ParseFrame(segment, &frame)) break;
    ++modules;
    if (frames != nullptr) frames->push_back(frame);
    begin = end + 1;
  }
  if (frames != nullptr) frames->clear();
  return false;
}

}  // namespace plasmient::model
