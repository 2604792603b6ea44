#include "ingest/nvtx_name_parser.h"

#include <array>
#include <charconv>

#include "base/step_name.h"

namespace plasmient::ingest {
namespace {

// The fields PyTorch appends to an op's name, each after ", ".
constexpr std::array<std::string_view, 4> kTorchFields = {
    "seq = ", "op_id = ", "sizes = ", "input_op_ids = "};

// Position of the ", " that starts the first PyTorch field, or npos.
std::size_t FirstFieldAt(std::string_view text) {
  for (auto pos = text.find(", "); pos != std::string_view::npos; pos = text.find(", ", pos + 1)) {
    auto rest = text.substr(pos + 2);
    for (auto field : kTorchFields) {
      if (rest.starts_with(field)) return pos;
    }
  }
  return std::string_view::npos;
}

// The balanced [...] starting at text[0], or "" when it is not balanced.
std::string_view BracketBlock(std::string_view text) {
  if (text.empty() || text.front() != '[') return {};
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']' && --depth == 0) return text.substr(0, i + 1);
  }
  return {};
}

}  // namespace

NvtxRangeMeaning ParseNvtxRangeName(std::string_view text) {
  NvtxRangeMeaning out;
  out.name = text;
  if (text.starts_with(kStepRangePrefix)) {
    auto digits = text.substr(kStepRangePrefix.size());
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc() && end != digits.data()) {
      out.kind = model::CpuOpKind::kStep;
      out.step = n;
      out.name = text.substr(0, static_cast<std::size_t>(end - text.data()));
    }
    return out;
  }
  auto fields_at = FirstFieldAt(text);
  if (fields_at == std::string_view::npos) {
    if (text.starts_with("aten::")) out.kind = model::CpuOpKind::kOp;
    return out;
  }
  out.kind = model::CpuOpKind::kOp;
  out.name = text.substr(0, fields_at);
  constexpr std::string_view kSizes = ", sizes = ";
  if (auto at = text.find(kSizes, fields_at); at != std::string_view::npos) {
    for (char c : BracketBlock(text.substr(at + kSizes.size()))) {
      if (c != ' ') out.input_dims += c;
    }
  }
  return out;
}

}  // namespace plasmient::ingest
