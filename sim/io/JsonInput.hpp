#pragma once
// Checked access to the JSON files ccsim reads (topologies, workloads, experiments): every problem
// becomes an InputError that prints as one line, `FILE: /json/path: what is wrong`.

#include "sim/io/Limits.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ccsim::io {

/// A problem with user input. Only `main` catches it: it prints what() and exits with code 2.
/// The message is always one printable line: the constructor escapes control characters and invalid UTF-8 (as
/// \xNN) and caps each part's length, whatever the caller passed.
class InputError : public std::runtime_error {
public:
  /// `where` is a file path or a command-line option ("--gpus"); `pointer` a JSON pointer or "".
  InputError(const std::string& where, const std::string& pointer, const std::string& problem);
  const std::string& where() const { return where_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& problem() const { return problem_; }

private:
  std::string where_;
  std::string pointer_;
  std::string problem_;
};

/// `text` made safe for a one-line message: control characters and invalid UTF-8 escaped as \xNN, and cut to
/// `max_chars` characters with the original length noted ("abc... (4194304 bytes)").
std::string printable(const std::string& text, std::size_t max_chars);
/// User text quoted for an error message: 'text', cut at limits::kMaxEchoChars.
std::string echo(const std::string& text);

/// A JSON document as text that never throws on the strings inside it (invalid UTF-8 from a file name or a flag is
/// replaced by U+FFFD). Every JSON ccsim writes goes through this.
std::string dump_json(const nlohmann::json& doc, int indent = -1);

/// Reads and parses a JSON file. Anything but a regular file (a FIFO, /dev/zero, a folder), a file over
/// limits::kMaxFileBytes, nesting deeper than limits::kMaxJsonDepth, and invalid, truncated or non-UTF-8 JSON
/// throw InputError.
nlohmann::json read_json_file(const std::string& path);
/// The bytes of an input file after the same checks (a regular file of at most limits::kMaxFileBytes); `kind`
/// names what was expected in the message for a directory ("JSON file").
std::string read_input_file(const std::string& path, const std::string& kind);
/// The same checks on text already in memory (`where` names it in errors).
nlohmann::json parse_json_text(const std::string& text, const std::string& where);

/// A value checked against a range: finite, inside [lo, hi] (or (lo, hi]), and whole when `integer`.
/// Violations throw InputError(where, pointer, "must be ... (got X)").
double check_range(double value, const Range& range, bool integer, const std::string& where,
                   const std::string& pointer = "");
/// Text from the command line as a number in `range`: the whole text must be one finite number ("1e3", "0.5").
double parse_number(const std::string& text, const Range& range, const std::string& where);
/// Text as a whole number in `range` (64-bit parse; "-1" never wraps, "1e3" and "2.5" are rejected).
std::int64_t parse_integer(const std::string& text, const Range& range, const std::string& where);

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

/// The folder holding topologies/, workloads/, experiments/ and plots/: $CCSIM_DATA_DIR, else the source tree.
std::string data_dir();

/// A preset name ("v100x4-eth40g") or a path to a JSON file ("./my.json", "a/b.json").
/// Presets resolve to DATA_DIR/<kind>/<name>.json; an unknown name throws InputError listing the known ones,
/// with `option` ("--topology") as the place.
std::string resolve_preset(const std::string& kind, const std::string& name_or_path, const std::string& option);

struct PresetInfo {
  std::string name;
  std::string description; // the file's "description" field
  std::string path;
};
/// Every *.json in DATA_DIR/<kind>, sorted by name.
std::vector<PresetInfo> list_presets(const std::string& kind);

} // namespace ccsim::io
