// Checked JSON access: parse, then validate with a pointer in hand, so every error names FILE and /path.
#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ccsim::io {

namespace fs = std::filesystem;

InputError::InputError(const std::string& where, const std::string& pointer, const std::string& problem)
    : std::runtime_error(pointer.empty() ? fmt::format("{}: {}", where, problem)
                                         : fmt::format("{}: {}: {}", where, pointer, problem))
    , where_(where)
    , pointer_(pointer)
    , problem_(problem)
{
}

namespace {
// nlohmann's messages look like "[json.exception.parse_error.101] parse error at line 3, column 1: ...".
// Keep the readable part, and a pointer when JSON_DIAGNOSTICS put one in "(/a/b) ...".
std::string strip_exception_prefix(const std::string& what)
{
  const auto close = what.find("] ");
  std::string text = close == std::string::npos ? what : what.substr(close + 2);
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

const char* type_name(const nlohmann::json& v)
{
  return v.type_name();
}
} // namespace

nlohmann::json read_json_file(const std::string& path)
{
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw InputError(path, "", "is a directory, not a JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(path, "", "cannot open file for reading");
  std::stringstream buffer;
  buffer << in.rdbuf();
  try {
    return nlohmann::json::parse(buffer.str());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, "", "invalid JSON: " + strip_exception_prefix(e.what()));
  }
}

JsonObject::JsonObject(const nlohmann::json& value, std::string file, std::string pointer)
    : value_(&value), file_(std::move(file)), pointer_(std::move(pointer))
{
  if (!value.is_object())
    fail(fmt::format("must be an object, not {}", type_name(value)));
}

void JsonObject::fail(const std::string& problem) const
{
  throw InputError(file_, pointer_.empty() ? "/" : pointer_, problem);
}

void JsonObject::fail_at(const std::string& key, const std::string& problem) const
{
  throw InputError(file_, child_pointer(key), problem);
}

bool JsonObject::has(const std::string& key) const
{
  return value_->contains(key);
}

namespace {
bool is_note_key(const std::string& key)
{
  return key.rfind("source", 0) == 0 || key.rfind("comment", 0) == 0 || key.rfind("description", 0) == 0 ||
         key.rfind("_", 0) == 0;
}
} // namespace

void JsonObject::allow_only(const std::vector<std::string>& allowed) const
{
  for (const auto& [key, _] : value_->items()) {
    if (is_note_key(key) || std::find(allowed.begin(), allowed.end(), key) != allowed.end())
      continue;
    std::string known;
    for (const auto& a : allowed)
      known += (known.empty() ? "" : ", ") + a;
    fail_at(key, fmt::format("unknown field (allowed: {})", known));
  }
}

void JsonObject::allow_only(std::initializer_list<const char*> allowed) const
{
  allow_only(std::vector<std::string>(allowed.begin(), allowed.end()));
}

const nlohmann::json& JsonObject::member(const std::string& key) const
{
  const auto it = value_->find(key);
  if (it == value_->end())
    fail_at(key, "missing required field");
  return *it;
}

std::string JsonObject::string(const std::string& key) const
{
  const auto& v = member(key);
  if (!v.is_string())
    fail_at(key, fmt::format("must be a string, not {}", type_name(v)));
  return v.get<std::string>();
}

std::string JsonObject::string_or(const std::string& key, const std::string& fallback) const
{
  return has(key) ? string(key) : fallback;
}

double JsonObject::number(const std::string& key) const
{
  const auto& v = member(key);
  if (!v.is_number())
    fail_at(key, fmt::format("must be a number, not {}", type_name(v)));
  const double x = v.get<double>();
  if (!std::isfinite(x))
    fail_at(key, "must be finite");
  return x;
}

double JsonObject::number_or(const std::string& key, double fallback) const
{
  return has(key) ? number(key) : fallback;
}

double JsonObject::positive(const std::string& key) const
{
  const double x = number(key);
  if (!(x > 0))
    fail_at(key, fmt::format("must be > 0 (got {})", x));
  return x;
}

double JsonObject::positive_or(const std::string& key, double fallback) const
{
  return has(key) ? positive(key) : fallback;
}

double JsonObject::non_negative(const std::string& key) const
{
  const double x = number(key);
  if (x < 0)
    fail_at(key, fmt::format("must be >= 0 (got {})", x));
  return x;
}

double JsonObject::non_negative_or(const std::string& key, double fallback) const
{
  return has(key) ? non_negative(key) : fallback;
}

std::int64_t JsonObject::integer(const std::string& key) const
{
  const auto& v = member(key);
  if (v.is_number_integer())
    return v.get<std::int64_t>();
  if (v.is_number_float()) {
    const double x = v.get<double>();
    if (std::isfinite(x) && std::floor(x) == x && std::fabs(x) < 9.0e18)
      return static_cast<std::int64_t>(x);
    fail_at(key, fmt::format("must be a whole number (got {})", x));
  }
  fail_at(key, fmt::format("must be an integer, not {}", type_name(v)));
}

std::int64_t JsonObject::integer_or(const std::string& key, std::int64_t fallback) const
{
  return has(key) ? integer(key) : fallback;
}

std::int64_t JsonObject::positive_integer(const std::string& key) const
{
  const auto x = integer(key);
  if (x < 1)
    fail_at(key, fmt::format("must be >= 1 (got {})", x));
  return x;
}

std::int64_t JsonObject::positive_integer_or(const std::string& key, std::int64_t fallback) const
{
  return has(key) ? positive_integer(key) : fallback;
}

bool JsonObject::boolean(const std::string& key) const
{
  const auto& v = member(key);
  if (!v.is_boolean())
    fail_at(key, fmt::format("must be true or false, not {}", type_name(v)));
  return v.get<bool>();
}

bool JsonObject::boolean_or(const std::string& key, bool fallback) const
{
  return has(key) ? boolean(key) : fallback;
}

std::string JsonObject::choice(const std::string& key, const std::vector<std::string>& choices) const
{
  const std::string s = string(key);
  if (std::find(choices.begin(), choices.end(), s) == choices.end()) {
    std::string known;
    for (const auto& c : choices)
      known += (known.empty() ? "" : ", ") + c;
    fail_at(key, fmt::format("'{}' is not one of: {}", s, known));
  }
  return s;
}

std::string JsonObject::choice_or(const std::string& key, const std::vector<std::string>& choices,
                                  const std::string& fallback) const
{
  return has(key) ? choice(key, choices) : fallback;
}

JsonObject JsonObject::object(const std::string& key) const
{
  const auto& v = member(key);
  if (!v.is_object())
    fail_at(key, fmt::format("must be an object, not {}", type_name(v)));
  return JsonObject(v, file_, child_pointer(key));
}

std::optional<JsonObject> JsonObject::object_if(const std::string& key) const
{
  if (!has(key))
    return std::nullopt;
  return object(key);
}

std::vector<JsonObject> JsonObject::objects(const std::string& key) const
{
  const auto& v = member(key);
  if (!v.is_array())
    fail_at(key, fmt::format("must be an array, not {}", type_name(v)));
  std::vector<JsonObject> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string ptr = child_pointer(key) + "/" + std::to_string(i);
    if (!v[i].is_object())
      throw InputError(file_, ptr, fmt::format("must be an object, not {}", type_name(v[i])));
    out.emplace_back(v[i], file_, ptr);
  }
  return out;
}

std::vector<double> JsonObject::numbers(const std::string& key) const
{
  const auto& v = member(key);
  if (!v.is_array())
    fail_at(key, fmt::format("must be an array of numbers, not {}", type_name(v)));
  std::vector<double> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number())
      throw InputError(file_, child_pointer(key) + "/" + std::to_string(i),
                       fmt::format("must be a number, not {}", type_name(v[i])));
    out.push_back(v[i].get<double>());
  }
  return out;
}

std::vector<std::string> JsonObject::strings(const std::string& key) const
{
  const auto& v = member(key);
  if (!v.is_array())
    fail_at(key, fmt::format("must be an array of strings, not {}", type_name(v)));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string())
      throw InputError(file_, child_pointer(key) + "/" + std::to_string(i),
                       fmt::format("must be a string, not {}", type_name(v[i])));
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

std::string data_dir()
{
  if (const char* env = std::getenv("CCSIM_DATA_DIR"); env != nullptr && *env != '\0')
    return env;
  return CCSIM_SOURCE_DIR;
}

std::vector<PresetInfo> list_presets(const std::string& kind)
{
  std::vector<PresetInfo> out;
  const fs::path dir = fs::path(data_dir()) / kind;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json")
      continue;
    PresetInfo info{entry.path().stem().string(), "", entry.path().string()};
    try {
      const auto j = read_json_file(info.path);
      if (j.is_object() && j.contains("description") && j["description"].is_string())
        info.description = j["description"].get<std::string>();
    } catch (const InputError&) {
      info.description = "(unreadable)";
    }
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

std::string resolve_preset(const std::string& kind, const std::string& name_or_path, const std::string& option)
{
  const bool looks_like_path = name_or_path.find('/') != std::string::npos ||
                               (name_or_path.size() > 5 && name_or_path.ends_with(".json"));
  if (looks_like_path) {
    if (!fs::exists(name_or_path))
      throw InputError(name_or_path, "", "no such file");
    return name_or_path;
  }
  const fs::path preset = fs::path(data_dir()) / kind / (name_or_path + ".json");
  if (fs::exists(preset))
    return preset.string();
  std::string known;
  for (const auto& p : list_presets(kind))
    known += (known.empty() ? "" : ", ") + p.name;
  const std::string singular = kind == "topologies" ? "topology" : kind.substr(0, kind.size() - 1);
  throw InputError(option, "", fmt::format("unknown {} preset '{}' (known: {})", singular, name_or_path,
                                           known.empty() ? "none" : known));
}

} // namespace ccsim::io
