// Option's constructors and modifiers (Option.hpp).
#include "api/options/Option.hpp"

#include <algorithm>

namespace ccsim::api {

const char* to_string(OptionKind kind)
{
  switch (kind) {
  case OptionKind::TEXT: return "text";
  case OptionKind::SOURCE: return "source";
  case OptionKind::PRESET: return "preset";
  case OptionKind::PATH: return "path";
  case OptionKind::INTEGER: return "integer";
  case OptionKind::NUMBER: return "number";
  case OptionKind::SIZE: return "size";
  case OptionKind::CHOICE: return "choice";
  case OptionKind::ON_OFF: return "on-off";
  case OptionKind::FLAG: return "flag";
  case OptionKind::LIST: return "list";
  case OptionKind::KEY_VALUE: return "key=value";
  }
  return "text";
}

std::string Option::python() const
{
  if (!python_name.empty())
    return python_name;
  std::string out = name;
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

Option& Option::needed()
{
  required = true;
  return *this;
}

Option& Option::positional_in_python()
{
  python_positional = true;
  return *this;
}

Option& Option::value(std::string placeholder)
{
  value_name = std::move(placeholder);
  return *this;
}

Option& Option::defaults(std::string text)
{
  default_text = std::move(text);
  return *this;
}

Option& Option::shows_default(std::string text)
{
  default_text       = std::move(text);
  default_shown_only = true;
  return *this;
}

Option& Option::alias(char letter)
{
  short_name = letter;
  return *this;
}

Option& Option::in_python(std::string keyword)
{
  python_name = std::move(keyword);
  return *this;
}

Option& Option::command_line_only(std::string why)
{
  cli_only = std::move(why);
  return *this;
}

Option& Option::repeatable()
{
  repeats = true;
  return *this;
}

Option& Option::first_argument()
{
  positional = true;
  return *this;
}

Option& Option::bare(std::string value)
{
  bare_value = std::move(value);
  return *this;
}

namespace {
Option make(std::string name, OptionKind kind, std::string help)
{
  Option o;
  o.name = std::move(name);
  o.kind = kind;
  o.help = std::move(help);
  return o;
}
} // namespace

Option text_option(std::string name, std::string help) { return make(std::move(name), OptionKind::TEXT, std::move(help)); }

Option source_option(std::string name, std::string help)
{
  return make(std::move(name), OptionKind::SOURCE, std::move(help));
}

Option preset_option(std::string name, std::string help)
{
  return make(std::move(name), OptionKind::PRESET, std::move(help));
}

Option path_option(std::string name, std::string help) { return make(std::move(name), OptionKind::PATH, std::move(help)); }

Option integer_option(std::string name, io::Range range, std::string help)
{
  Option o  = make(std::move(name), OptionKind::INTEGER, std::move(help));
  o.range = range;
  return o;
}

Option number_option(std::string name, io::Range range, std::string help)
{
  Option o  = make(std::move(name), OptionKind::NUMBER, std::move(help));
  o.range = range;
  return o;
}

Option size_option(std::string name, io::Range range, std::string help)
{
  Option o  = make(std::move(name), OptionKind::SIZE, std::move(help));
  o.range = range;
  return o;
}

Option choice_option(std::string name, std::vector<std::string> choices, std::string help)
{
  Option o    = make(std::move(name), OptionKind::CHOICE, std::move(help));
  o.choices = std::move(choices);
  return o;
}

Option on_off_option(std::string name, std::string help)
{
  Option o    = make(std::move(name), OptionKind::ON_OFF, std::move(help));
  o.choices = {"on", "off"};
  return o;
}

Option flag_option(std::string name, std::string help) { return make(std::move(name), OptionKind::FLAG, std::move(help)); }

Option list_option(std::string name, std::optional<io::Range> range, std::size_t max_items, std::string help)
{
  Option o      = make(std::move(name), OptionKind::LIST, std::move(help));
  o.range     = range;
  o.max_items = max_items;
  return o;
}

Option key_value_option(std::string name, char separator, std::string help)
{
  Option o      = make(std::move(name), OptionKind::KEY_VALUE, std::move(help));
  o.separator = separator;
  o.repeats   = true;
  return o;
}

} // namespace ccsim::api
