// Why a pass of its own: nlohmann::json keeps the last of two equal keys without a word, so a hand-written topology
// with "nic" twice would silently lose the first. Keys are compared decoded ("a" and "\u0061" are one key), as JSON
// defines them, which only the parser's own key events give. A SAX pass rather than a parser callback: nlohmann 3.11's
// callback parser scans the enclosing array at every object's end (json_sax_dom_callback_parser::end_object), so an
// array of n objects took O(n^2) (100,000 `{}` took 9.5 s); this pass and the plain parse after it are both linear.
#include "io/DuplicateKeyCheck.hpp"

#include "io/InputError.hpp"
#include "io/JsonObject.hpp"
#include "io/Limits.hpp"

#include <fmt/format.h>

namespace ccsim::io {

DuplicateKeyCheck::DuplicateKeyCheck(const std::string& where) : where_(where) {}

void DuplicateKeyCheck::check(const std::string& text)
{
  nlohmann::json::sax_parse(text, this);
}

bool DuplicateKeyCheck::value()
{
  if (++values_ > limits::kMaxJsonValues)
    throw InputError(where_, "",
                     fmt::format("holds more than {} JSON values (numbers, strings, objects, ...): the limit",
                                 limits::kMaxJsonValues));
  if (!frames_.empty() && !frames_.back().object)
    ++frames_.back().count;
  return true;
}

bool DuplicateKeyCheck::start_object(std::size_t)
{
  value();
  frames_.push_back({true, {}, {}, 0});
  return true;
}

bool DuplicateKeyCheck::start_array(std::size_t)
{
  value();
  frames_.push_back({false, {}, {}, 0});
  return true;
}

bool DuplicateKeyCheck::end_object()
{
  frames_.pop_back();
  return true;
}

bool DuplicateKeyCheck::end_array()
{
  frames_.pop_back();
  return true;
}

bool DuplicateKeyCheck::key(string_t& key)
{
  auto& top = frames_.back();
  if (!top.keys.insert(key).second)
    throw InputError(where_, pointer() + "/" + pointer_token(key),
                     "appears twice in one object (JSON would keep only the last; remove one)");
  top.key = key;
  return true;
}

bool DuplicateKeyCheck::parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error)
{
  throw error; // nlohmann's own message, as json::parse would throw it (the caller catches json::exception)
}

std::string DuplicateKeyCheck::pointer() const
{
  std::string out;
  for (std::size_t i = 0; i + 1 < frames_.size(); ++i)
    out += "/" + (frames_[i].object ? pointer_token(frames_[i].key) : std::to_string(frames_[i].count - 1));
  return out;
}

} // namespace ccsim::io
