// A small streaming JSON writer: correct escaping, no trailing commas, non-finite numbers as null.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace plasmient::exporting {

// A finite double as fmt's "{}" writes it, the form the JSON has always had: its shortest
// round-trip digits, in fixed notation when the leading digit's decimal exponent is in [-4, 16),
// else as "1e-05" or "1.5e+16". Writes at most kShortestDoubleChars; returns the end.
inline constexpr std::size_t kShortestDoubleChars = 32;  // the longest, -1.7976931348623157e+308, is 24
char* WriteShortestDouble(double value, char* out);

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out, bool pretty = true) : out_(out), pretty_(pretty) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Number(double value);
  JsonWriter& Int(std::int64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  // Key + value shorthands.
  JsonWriter& Field(std::string_view key, std::string_view value) { return Key(key).String(value); }
  JsonWriter& Field(std::string_view key, const char* value) { return Key(key).String(value); }
  // A key and a number or literal: one append where the key is plain and the nesting not deep.
  JsonWriter& Field(std::string_view key, double value);
  JsonWriter& Field(std::string_view key, std::int64_t value);
  JsonWriter& Field(std::string_view key, int value) { return Field(key, static_cast<std::int64_t>(value)); }
  JsonWriter& Field(std::string_view key, bool value) { return KeyAndText(key, value ? "true" : "false"); }

  // A writer for the next element of the array or object this one is in (after its key, for an
  // object), writing into `out` the bytes this writer would have written there: separator,
  // line break and indentation. Elements made this way on several threads, appended in order,
  // read as one document. Exactly one value must then be written through it.
  JsonWriter Element(std::string& out);

  static void AppendEscaped(std::string& out, std::string_view s);

 private:
  // Deepest indentation written from the stack; deeper levels take the general path.
  static constexpr std::size_t kInlineDepth = 32;
  // Writes what goes before the next value (separator, line break, indentation) at `p`, which
  // has room for 2 + 2 * kInlineDepth bytes, and returns the end. The writer's state is left as
  // it was: MarkValue() records that the value was written.
  char* Prefix(char* p) const;
  void MarkValue();
  // A value of plain text (no escape needed) after its prefix, in one append.
  void Raw(std::string_view text);
  // Key(key) then Raw(text), in one append when they fit the stack.
  JsonWriter& KeyAndText(std::string_view key, std::string_view text);
  void BeforeValue();
  void Newline();

  std::string& out_;
  bool pretty_;
  struct Level {
    bool is_object;
    bool empty;
  };
  std::vector<Level> stack_;
  bool after_key_ = false;
};

}  // namespace plasmient::exporting
