#pragma once
// Reading back a result document ccsim wrote (a report, an experiment row, a validation): each helper names the field
// that is missing or of the wrong type in a std::invalid_argument ("/config/dp: missing"), so a damaged document is
// one message. `where` is the JSON path of the object, ending in '/'. Input files users write go through io/ instead
// (io::JsonObject, io::InputError).

#include <nlohmann/json.hpp>

#include <string>

namespace ccsim::api {

const nlohmann::json& json_field(const nlohmann::json& obj, const std::string& key, const std::string& where);
/// A number; null reads as NaN (JSON has no NaN: dump writes it as null).
double json_number(const nlohmann::json& obj, const std::string& key, const std::string& where);
std::string json_text(const nlohmann::json& obj, const std::string& key, const std::string& where);
bool json_flag(const nlohmann::json& obj, const std::string& key, const std::string& where);

template <class T>
T json_integer(const nlohmann::json& obj, const std::string& key, const std::string& where)
{
  const nlohmann::json& v = json_field(obj, key, where);
  if (!v.is_number_integer())
    throw std::invalid_argument(where + key + ": not an integer");
  return v.get<T>();
}

} // namespace ccsim::api
