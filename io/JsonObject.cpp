// Checked member access: every read names the member's JSON pointer in its error, and a missing required member
// is an error, never a default.
#include "io/JsonObject.hpp"

#include "io/InputError.hpp"
#include "io/NumberInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ccsim::io {

namespace {
const char* type_name(const nlohmann::json& v)
{
  return v.type_name();
}
} // namespace

std::string pointer_token(const std::string& key)
{
  std::string out;
  for (const char c : key)
    out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return out;
}

bool is_note_key(const std::string& key)
{
  return key.rfind("source", 0) == 0 || key.rfind("comment", 0) == 0 || key.rfind("description", 0) == 0 ||
         key.rfind("_", 0) == 0;
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

} // namespace ccsim::io
