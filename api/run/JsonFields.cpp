// Typed reads of result documents; see JsonFields.hpp.
#include "api/run/JsonFields.hpp"

#include <cmath>
#include <stdexcept>

namespace ccsim::api {

const nlohmann::json& json_field(const nlohmann::json& obj, const std::string& key, const std::string& where)
{
  if (!obj.is_object() || !obj.contains(key))
    throw std::invalid_argument(where + key + ": missing");
  return obj[key];
}

double json_number(const nlohmann::json& obj, const std::string& key, const std::string& where)
{
  const nlohmann::json& v = json_field(obj, key, where);
  if (v.is_null())
    return std::nan("");
  if (!v.is_number())
    throw std::invalid_argument(where + key + ": not a number");
  return v.get<double>();
}

std::string json_text(const nlohmann::json& obj, const std::string& key, const std::string& where)
{
  const nlohmann::json& v = json_field(obj, key, where);
  if (!v.is_string())
    throw std::invalid_argument(where + key + ": not a string");
  return v.get<std::string>();
}

bool json_flag(const nlohmann::json& obj, const std::string& key, const std::string& where)
{
  const nlohmann::json& v = json_field(obj, key, where);
  if (!v.is_boolean())
    throw std::invalid_argument(where + key + ": not a boolean");
  return v.get<bool>();
}

} // namespace ccsim::api
