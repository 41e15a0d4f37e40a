#pragma once
// Reading a report document back (api/run/ReportJson.hpp, api/run/OperatorsJson.hpp): each field by its key, with
// the path of the object it is in, so a damaged document is one message naming the field that is missing or of the
// wrong type.

#include <nlohmann/json.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

namespace ccsim::api::report_fields {

inline const nlohmann::json& at(const nlohmann::json& obj, const char* key, const std::string& where)
{
  if (!obj.is_object() || !obj.contains(key))
    throw std::invalid_argument(where + key + ": missing");
  return obj[key];
}

inline double number(const nlohmann::json& obj, const char* key, const std::string& where)
{
  const nlohmann::json& v = at(obj, key, where);
  if (v.is_null()) // JSON has no NaN: dump writes it as null
    return std::nan("");
  if (!v.is_number())
    throw std::invalid_argument(where + key + ": not a number");
  return v.get<double>();
}

template <class T>
T integer(const nlohmann::json& obj, const char* key, const std::string& where)
{
  const nlohmann::json& v = at(obj, key, where);
  if (!v.is_number_integer())
    throw std::invalid_argument(where + key + ": not an integer");
  return v.get<T>();
}

inline std::string text(const nlohmann::json& obj, const char* key, const std::string& where)
{
  const nlohmann::json& v = at(obj, key, where);
  if (!v.is_string())
    throw std::invalid_argument(where + key + ": not a string");
  return v.get<std::string>();
}

} // namespace ccsim::api::report_fields
