// Parsers for the tiny JSON fragments a Kineto cpu_op carries: "Input Dims" (nested int
// lists), "Input type" and "Concrete Inputs" (string arrays). Fixed capacity, no heap:
// an op's arguments are a few dozen numbers, and a parse runs once per op.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace plasmient::roofline {

inline constexpr int kMaxOpArgs = 64;
inline constexpr int kMaxShapes = 128;
inline constexpr int kMaxDims = 512;

// One tensor shape: a run of ints inside OpDims.
struct ShapeRef {
  std::uint16_t first = 0;
  std::uint8_t rank = 0;
};

// "Input Dims": one entry per argument. A plain argument is one shape ([] for scalars,
// None and 0-dim tensors); a TensorList argument is a list of shapes.
class OpDims {
 public:
  // False when the text is not a list of (lists of) non-negative int lists, or a shape exceeds the
  // capacity. Arguments or list members past the capacity are skipped: truncated().
  bool Parse(std::string_view text);
  bool truncated() const { return truncated_; }

  int arg_count() const { return arg_count_; }
  bool IsList(int arg) const { return args_[arg].is_list; }
  int ShapeCount(int arg) const { return args_[arg].shape_count; }
  // The shape of a plain argument (empty for a list or a missing argument).
  std::span<const std::int64_t> Shape(int arg) const;
  // The i-th shape of a list argument.
  std::span<const std::int64_t> ListShape(int arg, int i) const;

 private:
  struct Arg {
    std::uint16_t first_shape = 0;
    std::uint16_t shape_count = 0;
    bool is_list = false;
  };
  std::span<const std::int64_t> View(const ShapeRef& s) const { return {dims_.data() + s.first, s.rank}; }

  std::array<std::int64_t, kMaxDims> dims_{};
  std::array<ShapeRef, kMaxShapes> shapes_{};
  std::array<Arg, kMaxOpArgs> args_{};
  int dim_count_ = 0;
  int shape_count_ = 0;
  int arg_count_ = 0;
  bool truncated_ = false;
};

// A JSON array of plain strings (escapes kept raw). Used for "Input type" and "Concrete
// Inputs"; items past kMaxOpArgs are validated and dropped.
class StringArray {
 public:
  bool Parse(std::string_view text);
  int size() const { return count_; }
  // "" when i is out of range.
  std::string_view operator[](int i) const { return i >= 0 && i < count_ ? items_[i] : std::string_view{}; }

 private:
  std::array<std::string_view, kMaxOpArgs> items_{};
  int count_ = 0;
};

// Concrete Inputs values: "[1, 1]", "7", "True", "0.125".
// Returns the number of ints written (at most out.size()), nullopt when text is not an int list.
std::optional<int> ParseIntList(std::string_view text, std::span<std::int64_t> out);
std::optional<std::int64_t> ParseInt(std::string_view text);
std::optional<bool> ParseBool(std::string_view text);

std::int64_t Elements(std::span<const std::int64_t> shape);

}  // namespace plasmient::roofline
