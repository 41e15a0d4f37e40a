// Checked JSON access: parse, then validate with a pointer in hand, so every error names FILE and /path.
#include "sim/io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <vector>

namespace ccsim::io {

namespace fs = std::filesystem;

namespace {
// Caps on the parts of an error line: a file name or flag, a JSON pointer, the problem (which may list choices).
constexpr std::size_t MAX_WHERE_CHARS   = 200;
constexpr std::size_t MAX_POINTER_CHARS = 200;
constexpr std::size_t MAX_PROBLEM_CHARS = 1000;

/// Length of the valid UTF-8 sequence starting at s[i] (1-4), or 0 when the bytes there are not one.
std::size_t utf8_sequence_length(const std::string& s, std::size_t i)
{
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  std::size_t n = 0;
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4;
  else
    return 0;
  if (i + n > s.size())
    return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80)
      return 0;
  // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are invalid too (RFC 3629 §4).
  if ((c == 0xE0 && byte(i + 1) < 0xA0) || (c == 0xED && byte(i + 1) > 0x9F) || (c == 0xF0 && byte(i + 1) < 0x90) ||
      (c == 0xF4 && byte(i + 1) > 0x8F))
    return 0;
  return n;
}

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

/// Fails when arrays and objects in JSON text nest deeper than the limit (strings skipped). Scanning before parsing
/// keeps a 100,000-deep document away from every recursive copy or destructor.
void check_depth(const std::string& text, const std::string& where)
{
  int depth = 0, line = 1;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (c == '\n')
      ++line;
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limits::kMaxJsonDepth)
        throw InputError(where, "", fmt::format("invalid JSON: nested deeper than {} levels (line {})",
                                                limits::kMaxJsonDepth, line));
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

/// Bounds as people write them: whole numbers in full up to 10^12 (16777216, not 1.67772e+07), others in %g.
std::string format_bound(double v)
{
  if (std::fabs(v) < 1e12 && std::floor(v) == v)
    return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{:g}", v);
}
} // namespace

std::string printable(const std::string& text, std::size_t max_chars)
{
  std::string out;
  std::size_t chars = 0, i = 0;
  while (i < text.size()) {
    if (chars == max_chars)
      return out + fmt::format("... ({} bytes)", text.size());
    const std::size_t n   = utf8_sequence_length(text, i);
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7F))) {
      out += fmt::format("\\x{:02X}", c);
      i += 1;
    } else {
      out.append(text, i, n);
      i += n;
    }
    ++chars;
  }
  return out;
}

std::string echo(const std::string& text)
{
  return "'" + printable(text, limits::kMaxEchoChars) + "'";
}

std::string dump_json(const nlohmann::json& doc, int indent)
{
  return doc.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

InputError::InputError(const std::string& where, const std::string& pointer, const std::string& problem)
    : std::runtime_error(pointer.empty() ? fmt::format("{}: {}", printable(where, MAX_WHERE_CHARS),
                                                       printable(problem, MAX_PROBLEM_CHARS))
                                         : fmt::format("{}: {}: {}", printable(where, MAX_WHERE_CHARS),
                                                       printable(pointer, MAX_POINTER_CHARS),
                                                       printable(problem, MAX_PROBLEM_CHARS)))
    , where_(where)
    , pointer_(pointer)
    , problem_(problem)
{
}

namespace {
/// A key as a JSON pointer token (RFC 6901: ~ -> ~0, / -> ~1).
std::string pointer_token(const std::string& key)
{
  std::string out;
  for (const char c : key)
    out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return out;
}

/// Follows the parser through the document so that a key given twice in one object is an error at its JSON path.
/// Why: nlohmann::json keeps the last of two equal keys without a word, so a hand-written topology with "nic" twice
/// would silently lose the first. Keys are compared decoded ("a" and "\u0061" are one key), as JSON defines them.
class DuplicateKeyCheck {
public:
  explicit DuplicateKeyCheck(const std::string& where) : where_(where) {}

  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, const nlohmann::json& parsed)
  {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
    case E::object_start:
    case E::array_start:
      enter_element();
      frames_.push_back({event == E::object_start, {}, {}, 0});
      break;
    case E::object_end:
    case E::array_end:
      frames_.pop_back();
      break;
    case E::key: {
      auto& top       = frames_.back();
      const auto& key = parsed.get_ref<const std::string&>();
      if (!top.keys.insert(key).second)
        throw InputError(where_, pointer() + "/" + pointer_token(key),
                         "appears twice in one object (JSON would keep only the last; remove one)");
      top.key = key;
      break;
    }
    case E::value:
      enter_element();
      break;
    }
    return true;
  }

private:
  struct Frame {
    bool object;
    std::set<std::string> keys; // the object's keys so far
    std::string key;            // the object's current key
    std::size_t count;          // the array's elements so far
  };

  void enter_element()
  {
    if (!frames_.empty() && !frames_.back().object)
      ++frames_.back().count;
  }

  /// The JSON pointer of the innermost open object.
  std::string pointer() const
  {
    std::string out;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i)
      out += "/" + (frames_[i].object ? pointer_token(frames_[i].key) : std::to_string(frames_[i].count - 1));
    return out;
  }

  const std::string& where_;
  std::vector<Frame> frames_;
};
} // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& where)
{
  if (text.size() > limits::kMaxFileBytes)
    throw InputError(where, "", fmt::format("is {} bytes; the limit is {} bytes", text.size(), limits::kMaxFileBytes));
  check_depth(text, where);
  try {
    DuplicateKeyCheck duplicates(where);
    return nlohmann::json::parse(text, std::ref(duplicates));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where, "", "invalid JSON: " + strip_exception_prefix(e.what()));
  }
}

std::string read_input_file(const std::string& path, const std::string& kind)
{
  // stat before open: opening a FIFO would block, and /dev/zero or a 2 GB file must not be read at all.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(path, "", "cannot open file for reading (no such file or no permission)");
  if (S_ISDIR(st.st_mode))
    throw InputError(path, "", "is a directory, not a " + kind);
  if (!S_ISREG(st.st_mode))
    throw InputError(path, "", "is not a regular file (a device, FIFO or socket)");
  if (static_cast<std::uint64_t>(st.st_size) > limits::kMaxFileBytes)
    throw InputError(path, "", fmt::format("is {} bytes; the limit is {} bytes", st.st_size, limits::kMaxFileBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(path, "", "cannot open file for reading");
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

nlohmann::json read_json_file(const std::string& path)
{
  return parse_json_text(read_input_file(path, "JSON file"), path);
}

double check_range(double value, const Range& range, bool integer, const std::string& where, const std::string& pointer)
{
  if (!std::isfinite(value))
    throw InputError(where, pointer, fmt::format("must be a finite number (got {})", value));
  if (integer && std::floor(value) != value)
    throw InputError(where, pointer, fmt::format("must be a whole number (got {})", value));
  const bool below = range.lo_open ? !(value > range.lo) : !(value >= range.lo);
  if (below || !(value <= range.hi))
    throw InputError(where, pointer,
                     fmt::format("must be {} {} and <= {} (got {})", range.lo_open ? ">" : ">=", format_bound(range.lo),
                                 format_bound(range.hi), value));
  return value;
}

double parse_number(const std::string& text, const Range& range, const std::string& where)
{
  double v             = 0;
  const char* end      = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec == std::errc::result_out_of_range)
    throw InputError(where, "", fmt::format("{} is out of range (must be <= {})", echo(text), format_bound(range.hi)));
  if (text.empty() || ec != std::errc() || ptr != end)
    throw InputError(where, "", fmt::format("{} is not a number", echo(text)));
  return check_range(v, range, /*integer=*/false, where);
}

std::int64_t parse_integer(const std::string& text, const Range& range, const std::string& where)
{
  std::int64_t v       = 0;
  const char* end      = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec == std::errc::result_out_of_range)
    throw InputError(where, "", fmt::format("{} is out of range (must be >= {} and <= {})", echo(text),
                                            format_bound(range.lo), format_bound(range.hi)));
  if (text.empty() || ec != std::errc() || ptr != end)
    throw InputError(where, "", fmt::format("{} is not a whole number", echo(text)));
  check_range(static_cast<double>(v), range, /*integer=*/true, where);
  return v;
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

std::string JsonObject::child_pointer(const std::string& key) const
{
  return pointer_ + "/" + pointer_token(key);
}

bool JsonObject::has(const std::string& key) const
{
  return value_->contains(key);
}

bool is_note_key(const std::string& key)
{
  return key.rfind("source", 0) == 0 || key.rfind("comment", 0) == 0 || key.rfind("description", 0) == 0 ||
         key.rfind("_", 0) == 0;
}

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

double JsonObject::number_in(const std::string& key, const Range& range) const
{
  return check_range(number(key), range, /*integer=*/false, file_, child_pointer(key));
}

double JsonObject::number_in_or(const std::string& key, const Range& range, double fallback) const
{
  return has(key) ? number_in(key, range) : fallback;
}

std::int64_t JsonObject::integer_in(const std::string& key, const Range& range) const
{
  const std::int64_t v = integer(key);
  check_range(static_cast<double>(v), range, /*integer=*/true, file_, child_pointer(key));
  return v;
}

std::int64_t JsonObject::integer_in_or(const std::string& key, const Range& range, std::int64_t fallback) const
{
  return has(key) ? integer_in(key, range) : fallback;
}

std::int64_t JsonObject::integer(const std::string& key) const
{
  const auto& v = member(key);
  // nlohmann keeps integers above INT64_MAX as unsigned: reading those as int64 would wrap them negative.
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    fail_at(key, fmt::format("must be a whole number below 2^63 (got {})", v.get<std::uint64_t>()));
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
    fail_at(key, fmt::format("{} is not one of: {}", echo(s), known));
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
    out.push_back(check_range(v[i].get<double>(), Range{-1e300, 1e300}, /*integer=*/false, file_,
                              child_pointer(key) + "/" + std::to_string(i)));
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
  std::error_code ec; // the non-throwing overloads: a 4 KB name is ENAMETOOLONG, not an exception
  if (looks_like_path) {
    if (!fs::exists(name_or_path, ec))
      throw InputError(name_or_path, "", "no such file");
    return name_or_path;
  }
  const fs::path preset = fs::path(data_dir()) / kind / (name_or_path + ".json");
  if (fs::exists(preset, ec))
    return preset.string();
  std::string known;
  for (const auto& p : list_presets(kind))
    known += (known.empty() ? "" : ", ") + p.name;
  const std::string singular = kind == "topologies" ? "topology" : kind.substr(0, kind.size() - 1);
  throw InputError(option, "", fmt::format("unknown {} preset {} (known: {})", singular, echo(name_or_path),
                                           known.empty() ? "none" : known));
}

} // namespace ccsim::io
