// ccsim._core.options and commands: every command's option table as JSON, which the package generates its functions'
// keyword arguments and docstrings from (ccsim/_commands.py), so an option is declared once, in its table
// (api/options/).
#include "Bindings.hpp"

#include "api/options/CommandTables.hpp"

#include "io/JsonInput.hpp"

#include <nanobind/stl/string.h>

namespace ccsim::python {

namespace {
nlohmann::json option_json(const api::Option& o)
{
  nlohmann::json range = nullptr;
  if (o.range)
    range = {{"lo", o.range->lo}, {"hi", o.range->hi}, {"lo_open", o.range->lo_open}};
  return {{"name", o.name},
          {"python", o.python()},
          {"kind", api::to_string(o.kind)},
          {"help", o.help},
          {"range", range},
          {"choices", o.choices},
          {"default", o.default_text.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.default_text)},
          {"default_shown_only", o.default_shown_only},
          {"required", o.required},
          {"repeats", o.repeats},
          {"positional", o.positional},
          {"python_positional", o.python_positional},
          {"separator", std::string(1, o.separator)},
          {"bare", o.bare_value.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.bare_value)},
          {"value_name", o.value_name},
          {"short", o.short_name != '\0' ? std::string(1, o.short_name) : std::string()},
          {"cli_only", o.cli_only}};
}

/// One command's table: {"command", "python_function", "usage", "options": [...]}.
std::string options_json(const std::string& command)
{
  const auto& t = api::command_table(command);
  nlohmann::json options = nlohmann::json::array();
  for (const auto& o : t.options)
    options.push_back(option_json(o));
  return io::dump_json(
      {{"command", t.command}, {"python_function", t.python_function}, {"usage", t.usage}, {"options", options}});
}

std::string commands_json()
{
  nlohmann::json out = nlohmann::json::array();
  for (const auto* t : api::command_tables())
    out.push_back({{"command", t->command}, {"python_function", t->python_function}});
  return io::dump_json(out);
}
} // namespace

void bind_options(nb::module_& m)
{
  m.def("options", &options_json, nb::arg("command"), "A command's option table as JSON text.");
  m.def("commands", &commands_json, "Every command with an option table, and its Python function, as JSON text.");
}

} // namespace ccsim::python
