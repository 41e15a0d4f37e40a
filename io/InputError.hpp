#pragma once
// The one error type of user input, and the helpers that keep its message one printable line: every problem with a
// file, a JSON value or a flag prints as `FILE: /json/path: what is wrong` (or `--flag: what is wrong`).

#include <nlohmann/json.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace ccsim::io {

/// A problem with user input. Only `main` catches it: it prints what() and exits with code 2.
/// The message is always one printable line: the constructor escapes control characters and invalid UTF-8 (as
/// \xNN) and caps each part's length, whatever the caller passed.
class InputError : public std::runtime_error {
public:
  /// `where` is a file path or a command-line option ("--gpus"); `pointer` a JSON pointer or "".
  InputError(const std::string& where, const std::string& pointer, const std::string& problem);
  const std::string& where() const { return where_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& problem() const { return problem_; }

private:
  std::string where_;
  std::string pointer_;
  std::string problem_;
};

/// `text` made safe for a one-line message: control characters and invalid UTF-8 escaped as \xNN, and cut to
/// `max_chars` characters with the original length noted ("abc... (4194304 bytes)").
std::string printable(const std::string& text, std::size_t max_chars);
/// User text quoted for an error message: 'text', cut at limits::kMaxEchoChars.
std::string echo(const std::string& text);

/// A JSON document as text that never throws on the strings inside it (invalid UTF-8 from a file name or a flag is
/// replaced by U+FFFD), with every control character escaped (DEL and U+0080-U+009F too, as \u007f ...). Every JSON
/// ccsim writes goes through this.
std::string dump_json(const nlohmann::json& doc, int indent = -1);

} // namespace ccsim::io
