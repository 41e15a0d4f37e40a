// Options named in Python's spelling (OptionSpelling.hpp).
#include "api/options/OptionSpelling.hpp"

#include <cctype>

namespace ccsim::api {

namespace {
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_'; }

/// The option Python has whose reference starts at text[at] ("--" then its whole name), or null. The command line's own
/// options (--help, --format, ...) have no keyword: a message naming one speaks of the command line ("ccsim train
/// --help lists the keys") and stays as it is.
const Option* reference_at(const std::string& text, std::size_t at, const CommandOptions& options)
{
  if (text.compare(at, 2, "--") != 0 || (at > 0 && name_char(text[at - 1])))
    return nullptr;
  std::size_t end = at + 2;
  while (end < text.size() && name_char(text[end]))
    ++end;
  const Option* o = options.find(text.substr(at + 2, end - at - 2));
  return o != nullptr && o->cli_only.empty() ? o : nullptr;
}
} // namespace

std::string python_spelling(const std::string& text, const CommandOptions& options)
{
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const Option* o = reference_at(text, i, options);
    if (o == nullptr) {
      out += text[i++];
      continue;
    }
    i += o->ref().size();
    const bool spaced = i + 1 < text.size() && text[i] == ' ';
    const char next   = spaced ? text[i + 1] : '\0';
    if (o->kind == OptionKind::FLAG) {
      out += o->python() + "=True";
    } else if (spaced && (std::isdigit(static_cast<unsigned char>(next)) != 0 ||
                          std::isupper(static_cast<unsigned char>(next)) != 0 || next == '\'')) {
      out += o->python() + "="; // its value follows: "gpus=8", "steps=FILE"
      ++i;
    } else if (spaced && (next == '<' || next == '>' || next == '=')) {
      out += o->python(); // a comparison follows: "pp >= 2"
    } else {
      out += o->python() + "=";
    }
  }
  return out;
}

std::string python_where(const std::string& where, const CommandOptions& options)
{
  const Option* o = reference_at(where, 0, options);
  if (o == nullptr)
    return python_spelling(where, options);
  const std::string rest = where.substr(o->ref().size());
  if (rest.empty())
    return o->python();
  if (o->kind == OptionKind::KEY_VALUE && rest.size() > 1 && rest[0] == ' ')
    return o->python() + "['" + rest.substr(1) + "']";
  return o->python() + python_spelling(rest, options);
}

io::InputError for_python(const io::InputError& e, const CommandOptions& options)
{
  return io::InputError(python_where(e.where(), options), e.pointer(), python_spelling(e.problem(), options));
}

} // namespace ccsim::api
