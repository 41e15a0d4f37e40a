#pragma once
// Checked access to the JSON files ccsim reads (topologies, workloads, experiments): every problem
// becomes an InputError that prints as one line, `FILE: /json/path: what is wrong`.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ccsim::io {

/// A problem with user input. Only `main` catches it: it prints what() and exits with code 2.
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

/// Reads and parses a JSON file. Unreadable files and invalid or truncated JSON throw InputError.
nlohmann::json read_json_file(const std::string& path);

/// One JSON object inside a file, with its pointer, giving checked access to its members.
/// Keys starting with "source", "comment", "description" or "_" are notes and always allowed.
class JsonObject {
public:
  JsonObject(const nlohmann::json& value, std::string file, std::string pointer = "");

  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  const nlohmann::json& raw() const { return *value_; }
  std::string child_pointer(const std::string& key) const { return pointer_ + "/" + key; }

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
  std::int64_t integer(const std::string& key) const;                  // a whole number
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
  std::vector<double> numbers(const std::string& key) const;
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
