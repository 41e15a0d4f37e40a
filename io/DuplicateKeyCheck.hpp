#pragma once
// Internal to io/JsonFile.cpp: a SAX pass over JSON text, before the document is built, that throws InputError
// at the JSON pointer of a key given twice in one object, and when the document holds more than
// limits::kMaxJsonValues values. Its parse errors are nlohmann's own (the same messages as json::parse).

#include <nlohmann/json.hpp>

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace ccsim::io {

class DuplicateKeyCheck : public nlohmann::json_sax<nlohmann::json> {
public:
  /// `where` names the document in errors; it must outlive the check.
  explicit DuplicateKeyCheck(const std::string& where);

  /// Runs the pass over `text`: InputError for a duplicate key or too many values, nlohmann::json::parse_error for
  /// text that is not JSON.
  void check(const std::string& text);

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override;
  bool key(string_t& key) override;
  bool end_object() override;
  bool start_array(std::size_t) override;
  bool end_array() override;
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) override;

private:
  struct Frame {
    bool object;
    std::set<std::string> keys; // the object's keys so far
    std::string key;            // the object's current key
    std::size_t count;          // the array's elements so far
  };

  /// A value (scalar, object or array) begins: counted, and numbered in its array.
  bool value();
  /// The JSON pointer of the innermost open object.
  std::string pointer() const;

  const std::string& where_;
  std::vector<Frame> frames_;
  std::size_t values_ = 0;
};

} // namespace ccsim::io
