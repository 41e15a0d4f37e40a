#pragma once
// A command's option table: one line per option, the option (Option.hpp) beside the field of the command's request
// it fills. `fill` reads what a front end was given into that request, each value parsed by its kind and checked
// against its range or choices (OptionText.hpp); the command's builder then checks what spans several options. The
// command line generates its flags from the same lines (cli/Options.hpp) and Python its keyword arguments
// (python/ccsim/_commands.py), so adding an option is one line here:
//
//   {integer_option("gpus", io::range::kGpus, "number of GPUs").needed().value("N"), into(&SimulateCommand::gpus)},

#include "api/options/GivenValues.hpp"
#include "api/options/OptionText.hpp"
#include "api/run/SimulateRequest.hpp"

#include "io/InputError.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ccsim::api {

namespace detail {
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class>
inline constexpr bool kUnsupportedField = false;
} // namespace detail

/// Reads `value` of option `o` into a field, the conversion chosen by the field's type and the option's kind.
template <class Field>
void read_into(Field& field, const GivenValue& value, const Option& o)
{
  if constexpr (detail::is_optional<Field>::value) {
    typename Field::value_type v{};
    read_into(v, value, o);
    field = std::move(v);
  } else if constexpr (std::is_same_v<Field, bool>) {
    field = read_switch(value, o);
  } else if constexpr (std::is_integral_v<Field>) {
    field = static_cast<Field>(read_whole(value.text(), o));
  } else if constexpr (std::is_floating_point_v<Field>) {
    field = read_number(value.text(), o);
  } else if constexpr (std::is_same_v<Field, std::string>) {
    field = read_text(value.text(), o);
  } else if constexpr (std::is_same_v<Field, InputSource>) {
    field = read_source(value, o);
  } else if constexpr (std::is_same_v<Field, std::vector<int>>) {
    field.clear();
    for (const auto v : read_integer_list(value.text(), o))
      field.push_back(static_cast<int>(v));
  } else if constexpr (std::is_same_v<Field, std::vector<std::string>>) {
    field = o.repeats ? read_repeated(value.texts, o) : read_name_list(value.text(), o);
  } else if constexpr (std::is_same_v<Field, std::map<std::string, std::string>>) {
    for (const auto& text : value.texts) {
      auto [key, v] = read_key_value(text, o);
      field[key]    = v;
    }
  } else {
    static_assert(detail::kUnsupportedField<Field>, "no reading of an option into this field type");
  }
}

/// The fill of a table line that reads the option into the field a chain of member pointers names:
/// into(&SimulateCommand::gpus), into(&AdviseCommand::shape, &SimulateRequest::gpus).
template <class... Members>
auto into(Members... path)
{
  return [path...](auto& target, const GivenValue& value, const Option& o) { read_into((target .* ... .* path), value, o); };
}

template <class Target>
class OptionTable {
public:
  /// Reads one option's value into the target; empty: the option is the front end's own (--format, --quiet) or the
  /// command's checks read it.
  using Fill = std::function<void(Target&, const GivenValue&, const Option&)>;
  struct Line {
    Option option;
    Fill fill;
  };

  OptionTable(std::string command, std::string usage, std::string python_function, std::vector<Line> lines)
      : lines_(std::move(lines))
  {
    options_.command         = std::move(command);
    options_.usage           = std::move(usage);
    options_.python_function = std::move(python_function);
    for (const auto& l : lines_)
      options_.options.push_back(l.option);
  }

  const CommandOptions& options() const { return options_; }

  /// A new target with every option given (or whose default applies) read into it, in table order. A required option
  /// not given is an error (the command line's parser and Python's signature say so first; this is for library
  /// callers).
  Target fill(const GivenValues& given) const
  {
    Target target{};
    for (const auto& line : lines_) {
      const Option& o = line.option;
      const GivenValue* value = given.find(o.name);
      if (value == nullptr && o.required)
        throw io::InputError(o.ref(), "", "is required but missing");
      if (!line.fill)
        continue;
      if (value != nullptr)
        line.fill(target, *value, o);
      else if (!o.default_text.empty() && !o.default_shown_only)
        line.fill(target, GivenValue{{o.default_text}, std::nullopt}, o);
    }
    return target;
  }

private:
  std::vector<Line> lines_;
  CommandOptions options_;
};

/// Appends `more` lines to `lines` (tables are put together from shared groups: CommonOptions.hpp).
template <class Line>
void append(std::vector<Line>& lines, std::vector<Line> more)
{
  for (auto& l : more)
    lines.push_back(std::move(l));
}

} // namespace ccsim::api
