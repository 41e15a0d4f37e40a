// Why a parser callback: nlohmann::json keeps the last of two equal keys without a word, so a hand-written topology
// with "nic" twice would silently lose the first. Keys are compared decoded ("a" and "\u0061" are one key), as JSON
// defines them, which only the parser's own key events give.
#include "sim/io/DuplicateKeyCheck.hpp"

#include "sim/io/InputError.hpp"
#include "sim/io/JsonObject.hpp"

namespace ccsim::io {

DuplicateKeyCheck::DuplicateKeyCheck(const std::string& where) : where_(where) {}

bool DuplicateKeyCheck::operator()(int /*depth*/, nlohmann::json::parse_event_t event, const nlohmann::json& parsed)
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

void DuplicateKeyCheck::enter_element()
{
  if (!frames_.empty() && !frames_.back().object)
    ++frames_.back().count;
}

std::string DuplicateKeyCheck::pointer() const
{
  std::string out;
  for (std::size_t i = 0; i + 1 < frames_.size(); ++i)
    out += "/" + (frames_[i].object ? pointer_token(frames_[i].key) : std::to_string(frames_[i].count - 1));
  return out;
}

} // namespace ccsim::io
