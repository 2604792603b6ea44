#include "roofline/op_args_parser.h"

#include <charconv>

namespace plasmient::roofline {
namespace {

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  char Peek() {
    SkipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool AtEnd() { return Peek() == '\0'; }
  std::optional<std::int64_t> Int() {
    SkipSpace();
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), value);
    if (ec != std::errc{}) return std::nullopt;
    pos_ = static_cast<std::size_t>(ptr - text_.data());
    return value;
  }
  // Skips one bracketed list of ints and lists; false when it is not one.
  bool SkipList() {
    if (!Eat('[')) return false;
    int depth = 1;
    while (pos_ < text_.size() && depth > 0) {
      char c = text_[pos_++];
      if (c == '[') {
        ++depth;
      } else if (c == ']') {
        --depth;
      } else if (!(c == ',' || c == '-' || c == ' ' || (c >= '0' && c <= '9'))) {
        return false;
      }
    }
    return depth == 0;
  }
  // A JSON string body (the opening quote already eaten), escapes kept raw.
  std::optional<std::string_view> StringBody() {
    std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      pos_ += text_[pos_] == '\\' ? 2 : 1;
    }
    if (pos_ >= text_.size()) return std::nullopt;
    std::string_view body = text_.substr(start, pos_ - start);
    ++pos_;
    return body;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

// The ints of one shape up to its closing ']' (the opening one already eaten).
bool ReadShape(Cursor& c, std::span<std::int64_t> dims, int& dim_count, ShapeRef& shape) {
  shape = ShapeRef{static_cast<std::uint16_t>(dim_count), 0};
  if (c.Eat(']')) return true;
  do {
    auto v = c.Int();
    if (!v || *v < 0 || dim_count == static_cast<int>(dims.size()) || shape.rank == 255) return false;
    dims[dim_count++] = *v;
    ++shape.rank;
  } while (c.Eat(','));
  return c.Eat(']');
}

}  // namespace

bool OpDims::Parse(std::string_view text) {
  dim_count_ = shape_count_ = arg_count_ = 0;
  truncated_ = false;
  Cursor c(text);
  if (!c.Eat('[')) return false;
  if (c.Eat(']')) return c.AtEnd();
  while (true) {
    if (arg_count_ == kMaxOpArgs || shape_count_ == kMaxShapes) {  // keep the leading arguments
      truncated_ = true;
      do {
        if (!c.SkipList()) return false;
      } while (c.Eat(','));
      return c.Eat(']') && c.AtEnd();
    }
    if (!c.Eat('[')) return false;
    Arg& arg = args_[arg_count_++];
    arg = Arg{static_cast<std::uint16_t>(shape_count_), 0, false};
    if (c.Peek() == '[') {  // a TensorList: a list of shapes
      arg.is_list = true;
      while (true) {
        if (shape_count_ == kMaxShapes) {  // keep the leading members
          truncated_ = true;
          if (!c.SkipList()) return false;
          if (!c.Eat(',')) break;
          continue;
        }
        if (!c.Eat('[') || !ReadShape(c, dims_, dim_count_, shapes_[shape_count_++])) return false;
        ++arg.shape_count;
        if (!c.Eat(',')) break;
      }
      if (!c.Eat(']')) return false;
    } else {
      arg.shape_count = 1;
      if (!ReadShape(c, dims_, dim_count_, shapes_[shape_count_++])) return false;
    }
    if (c.Eat(',')) continue;
    return c.Eat(']') && c.AtEnd();
  }
}

std::span<const std::int64_t> OpDims::Shape(int arg) const {
  if (arg < 0 || arg >= arg_count_ || args_[arg].is_list) return {};
  return View(shapes_[args_[arg].first_shape]);
}

std::span<const std::int64_t> OpDims::ListShape(int arg, int i) const {
  if (arg < 0 || arg >= arg_count_ || i < 0 || i >= args_[arg].shape_count) return {};
  return View(shapes_[args_[arg].first_shape + i]);
}

bool StringArray::Parse(std::string_view text) {
  count_ = 0;
  Cursor c(text);
  if (!c.Eat('[')) return false;
  if (c.Eat(']')) return c.AtEnd();
  do {
    if (!c.Eat('"')) return false;
    auto body = c.StringBody();
    if (!body) return false;
    if (count_ < kMaxOpArgs) items_[count_++] = *body;  // later items are not needed by any model
  } while (c.Eat(','));
  return c.Eat(']') && c.AtEnd();
}

std::optional<int> ParseIntList(std::string_view text, std::span<std::int64_t> out) {
  Cursor c(text);
  if (!c.Eat('[')) return std::nullopt;
  int n = 0;
  if (c.Eat(']')) return c.AtEnd() ? std::optional<int>(0) : std::nullopt;
  do {
    auto v = c.Int();
    if (!v) return std::nullopt;
    if (n < static_cast<int>(out.size())) out[n] = *v;
    ++n;
  } while (c.Eat(','));
  if (!c.Eat(']') || !c.AtEnd()) return std::nullopt;
  return n < static_cast<int>(out.size()) ? n : static_cast<int>(out.size());
}

std::optional<std::int64_t> ParseInt(std::string_view text) {
  Cursor c(text);
  auto v = c.Int();
  if (!v || !c.AtEnd()) return std::nullopt;
  return v;
}

std::optional<bool> ParseBool(std::string_view text) {
  if (text == "True" || text == "true") return true;
  if (text == "False" || text == "false") return false;
  return std::nullopt;
}

std::int64_t Elements(std::span<const std::int64_t> shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

}  // namespace plasmient::roofline
