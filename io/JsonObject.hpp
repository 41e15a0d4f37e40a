#pragma once
// One JSON object of an input file with its pointer, giving checked, typed access to its members: a wrong type, a
// value out of range, a missing member or an unknown key is an InputError at that member's JSON path.

#include "io/Limits.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::io {

/// A key as a JSON pointer token (RFC 6901: ~ -> ~0, / -> ~1).
std::string pointer_token(const std::string& key);

/// Keys starting with "source", "comment", "description" or "_" are notes: allowed anywhere, never read as data.
bool is_note_key(const std::string& key);

/// One JSON object inside a file, with its pointer, giving checked access to its members.
/// Keys starting with "source", "comment", "description" or "_" are notes and always allowed.
class JsonObject {
public:
  JsonObject(const nlohmann::json& value, std::string file, std::string pointer = "");

  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  const nlohmann::json& raw() const { return *value_; }
  /// This object's pointer extended by `key` (escaped as RFC 6901 says: ~ -> ~0, / -> ~1).
  std::string child_pointer(const std::string& key) const;

  bool has(const std::string& key) const;
  /// Throws InputError naming the first key that is not in `allowed` (a typo must not become a default).
  void allow_only(std::initializer_list<const char*> allowed) const;
  void allow_only(const std::vector<std::string>& allowed) const;

  std::string string(const std::string& key) const;
  std::string string_or(const std::string& key, const std::string& fallback) const;
  double number(const std::string& key) const;
  double number_or(const std::string& key, double fallback) const;
  double positive(const std::string& key) const;                       // > 0
  double positive_or(const std::string& key, double fallback) const;   // > 0 when present
  double non_negative(const std::string& key) const;                   // >= 0
  double non_negative_or(const std::string& key, double fallback) const;
  /// A finite number inside `range` (Limits.hpp): the reads every physical quantity goes through.
  double number_in(const std::string& key, const Range& range) const;
  double number_in_or(const std::string& key, const Range& range, double fallback) const;
  /// A whole number inside `range`, parsed as 64-bit and checked before any narrowing.
  std::int64_t integer_in(const std::string& key, const Range& range) const;
  std::int64_t integer_in_or(const std::string& key, const Range& range, std::int64_t fallback) const;
  std::int64_t integer(const std::string& key) const;                  // a whole number (64-bit)
  std::int64_t integer_or(const std::string& key, std::int64_t fallback) const;
  std::int64_t positive_integer(const std::string& key) const;         // a whole number >= 1
  std::int64_t positive_integer_or(const std::string& key, std::int64_t fallback) const;
  bool boolean(const std::string& key) const;
  bool boolean_or(const std::string& key, bool fallback) const;
  /// Must be one of `choices`; the error lists them.
  std::string choice(const std::string& key, const std::vector<std::string>& choices) const;
  std::string choice_or(const std::string& key, const std::vector<std::string>& choices,
                        const std::string& fallback) const;

  JsonObject object(const std::string& key) const;
  std::optional<JsonObject> object_if(const std::string& key) const;
  /// An array whose elements are all objects.
  std::vector<JsonObject> objects(const std::string& key) const;
  std::vector<double> numbers(const std::string& key) const; // every element finite
  std::vector<std::string> strings(const std::string& key) const;

  /// An InputError at this object's pointer (or at one of its members when `key` is given).
  [[noreturn]] void fail(const std::string& problem) const;
  [[noreturn]] void fail_at(const std::string& key, const std::string& problem) const;

private:
  const nlohmann::json& member(const std::string& key) const; // throws "missing required field"

  const nlohmann::json* value_;
  std::string file_;
  std::string pointer_;
};

} // namespace ccsim::io
