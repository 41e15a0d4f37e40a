// Reading JSON input: stat before reading, scan the nesting before parsing, and follow the parser to catch keys given
// twice, so a hostile or mistaken file fails with one line naming it instead of blocking, exhausting memory or
// silently losing a value.
#include "io/JsonFile.hpp"

#include "io/DuplicateKeyCheck.hpp"
#include "io/InputError.hpp"
#include "io/Limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sys/stat.h>

namespace ccsim::io {

namespace {
// nlohmann's messages look like "[json.exception.parse_error.101] parse error at line 3, column 1: ...".
// Keep the readable part, and a pointer when JSON_DIAGNOSTICS put one in "(/a/b) ...".
std::string strip_exception_prefix(const std::string& what)
{
  const auto close = what.find("] ");
  std::string text = close == std::string::npos ? what : what.substr(close + 2);
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

/// Fails when arrays and objects in JSON text nest deeper than the limit (strings skipped). Scanning before parsing
/// keeps a 100,000-deep document away from every recursive copy or destructor.
void check_depth(const std::string& text, const std::string& where)
{
  int depth = 0, line = 1;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (c == '\n')
      ++line;
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limits::kMaxJsonDepth)
        throw InputError(where, "", fmt::format("invalid JSON: nested deeper than {} levels (line {})",
                                                limits::kMaxJsonDepth, line));
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}
} // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& where)
{
  if (text.size() > limits::kMaxFileBytes)
    throw InputError(where, "", fmt::format("is {} bytes; the limit is {} bytes", text.size(), limits::kMaxFileBytes));
  check_depth(text, where);
  try {
    DuplicateKeyCheck(where).check(text); // linear; throws before anything is built
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where, "", "invalid JSON: " + strip_exception_prefix(e.what()));
  }
}

std::string read_input_file(const std::string& path, const std::string& kind)
{
  // stat before open: opening a FIFO would block, and /dev/zero or a 2 GB file must not be read at all.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(path, "", "cannot open file for reading (no such file or no permission)");
  if (S_ISDIR(st.st_mode))
    throw InputError(path, "", "is a directory, not a " + kind);
  if (!S_ISREG(st.st_mode))
    throw InputError(path, "", "is not a regular file (a device, FIFO or socket)");
  if (static_cast<std::uint64_t>(st.st_size) > limits::kMaxFileBytes)
    throw InputError(path, "", fmt::format("is {} bytes; the limit is {} bytes", st.st_size, limits::kMaxFileBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(path, "", "cannot open file for reading");
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

nlohmann::json read_json_file(const std::string& path)
{
  return parse_json_text(read_input_file(path, "JSON file"), path);
}

} // namespace ccsim::io
