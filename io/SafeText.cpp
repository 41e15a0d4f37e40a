// Escaping of control characters in printed text, and the filter that applies it to std::cout and std::cerr.
#include "io/SafeText.hpp"

#include <fmt/format.h>

#include <iostream>
#include <streambuf>

namespace ccsim::io {

namespace {
/// Length of the valid UTF-8 sequence at text[i] (1-4), or 0 when the bytes there are not one (overlong forms,
/// surrogates and code points above U+10FFFF refused, as RFC 3629 says).
std::size_t utf8_length(std::string_view s, std::size_t i)
{
  const auto byte         = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c   = byte(i);
  std::size_t n           = 0;
  unsigned char lo = 0x80, hi = 0xBF; // the second byte's range
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n  = 3;
    lo = c == 0xE0 ? 0xA0 : 0x80;
    hi = c == 0xED ? 0x9F : 0xBF;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n  = 4;
    lo = c == 0xF0 ? 0x90 : 0x80;
    hi = c == 0xF4 ? 0x8F : 0xBF;
  } else
    return 0;
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi)
    return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
      return 0;
  return n;
}

std::string escaped(std::string_view text, bool keep_line_breaks)
{
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t n   = utf8_length(text, i);
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const bool c0         = n == 1 && (c < 0x20 || c == 0x7F) && !(keep_line_breaks && (c == '\n' || c == '\t'));
    const bool c1         = n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if (n == 0 || c0) {
      out += fmt::format("\\x{:02X}", c);
      i += 1;
    } else if (c1) {
      out += fmt::format("\\xC2\\x{:02X}", static_cast<unsigned char>(text[i + 1]));
      i += 2;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

/// A streambuf in front of another that escapes what safe_lines escapes. It holds back at most one incomplete UTF-8
/// sequence between writes (a name split across two << calls is still judged whole), flushed on sync().
class SafeBuf : public std::streambuf {
public:
  explicit SafeBuf(std::streambuf* target) : target_(target) {}

protected:
  int overflow(int ch) override
  {
    if (ch == traits_type::eof())
      return sync() == 0 ? 0 : traits_type::eof();
    const char c = static_cast<char>(ch);
    return xsputn(&c, 1) == 1 ? ch : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override
  {
    pending_.append(s, static_cast<std::size_t>(n));
    // Keep a trailing lead byte (and its continuation bytes) back until the sequence is complete.
    std::size_t cut = pending_.size();
    for (std::size_t back = 1; back <= 3 && back <= pending_.size(); ++back) {
      const unsigned char c = static_cast<unsigned char>(pending_[pending_.size() - back]);
      if (c < 0x80)
        break;
      if (c >= 0xC0) { // a lead byte: complete when `back` bytes hold its whole length
        const std::size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        if (back < need)
          cut = pending_.size() - back;
        break;
      }
    }
    write_out(std::string_view(pending_).substr(0, cut));
    pending_.erase(0, cut);
    return n;
  }
  int sync() override
  {
    write_out(pending_);
    pending_.clear();
    return target_->pubsync();
  }

private:
  void write_out(std::string_view text)
  {
    if (!text.empty()) {
      const std::string safe = escaped(text, /*keep_line_breaks=*/true);
      target_->sputn(safe.data(), static_cast<std::streamsize>(safe.size()));
    }
  }

  std::streambuf* target_;
  std::string pending_;
};
} // namespace

std::string safe_text(std::string_view text)
{
  return escaped(text, /*keep_line_breaks=*/false);
}

std::string safe_lines(std::string_view text)
{
  return escaped(text, /*keep_line_breaks=*/true);
}

void install_safe_output()
{
  // Never freed: the standard streams are flushed at exit after every static object of main's is destroyed, so the
  // filters must outlive them (a static pointer keeps them reachable, not leaked). Installed once.
  static SafeBuf* const out = new SafeBuf(std::cout.rdbuf());
  static SafeBuf* const err = new SafeBuf(std::cerr.rdbuf());
  std::cout.rdbuf(out);
  std::cerr.rdbuf(err);
}

} // namespace ccsim::io
