// Error lines are built from user text (file names, flags, keys, values), so every part is made printable and capped
// here, once, whatever the caller passes: a terminal never receives a control character or megabytes of one value.
#include "io/InputError.hpp"

#include "io/Limits.hpp"

#include <fmt/format.h>

namespace ccsim::io {

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
  std::string text = doc.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
  // nlohmann escapes U+0000-U+001F but writes DEL and the C1 controls (U+0080-U+009F) as they are; they can only be in
  // a string (a name from a file), and as \u escapes they read back the same while no terminal obeys them
  // (io/SafeText.hpp). The text is valid UTF-8 here, where 0xC2 is always a lead byte.
  if (text.find('\x7F') == std::string::npos && text.find('\xC2') == std::string::npos)
    return text;
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const unsigned char n = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (c == 0x7F) {
      out += "\\u007f";
    } else if (c == 0xC2 && n >= 0x80 && n <= 0x9F) {
      out += fmt::format("\\u{:04x}", n);
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
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

} // namespace ccsim::io
