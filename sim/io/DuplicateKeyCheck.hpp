#pragma once
// Internal to sim/io/JsonFile.cpp: a parser callback for nlohmann::json::parse that follows the document and throws
// InputError at the JSON pointer of a key given twice in one object.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace ccsim::io {

class DuplicateKeyCheck {
public:
  /// `where` names the document in errors; it must outlive the check.
  explicit DuplicateKeyCheck(const std::string& where);

  /// nlohmann's parser_callback_t: called for every parse event; keeps every value (returns true).
  bool operator()(int depth, nlohmann::json::parse_event_t event, const nlohmann::json& parsed);

private:
  struct Frame {
    bool object;
    std::set<std::string> keys; // the object's keys so far
    std::string key;            // the object's current key
    std::size_t count;          // the array's elements so far
  };

  void enter_element();
  /// The JSON pointer of the innermost open object.
  std::string pointer() const;

  const std::string& where_;
  std::vector<Frame> frames_;
};

} // namespace ccsim::io
