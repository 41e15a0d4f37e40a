#pragma once
// What a front end was given for one command, before anything is parsed: each option's texts as the user typed them
// (the command line's words, or the Python keyword's value written as that text by ccsim/_inputs.py), by the
// option's table name. The command's request builder reads them (api/options/OptionTable.hpp).

#include "api/options/Option.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

/// A command's options: its table, without the request it fills (each command's OptionTable holds one).
struct CommandOptions {
  std::string command; // "simulate"
  std::string usage;   // what the command line's usage shows after "ccsim <command>"; empty: "[options]"
  /// The Python function: its name, and the head of its docstring (the keyword arguments are appended from the table).
  std::string python_function;
  std::vector<Option> options;

  const Option* find(const std::string& name) const;
};

/// One option as given: a text per time it was given (none for a flag), and for a SOURCE from Python the document
/// itself (its label is the text).
struct GivenValue {
  std::vector<std::string> texts;
  std::optional<nlohmann::json> document;

  const std::string& text() const; // the first (for an option given once), "" for a flag
};

class GivenValues {
public:
  explicit GivenValues(const CommandOptions& options) : options_(&options) {}

  /// Adds one text of option `name` (again for a repeatable one). A name the table does not have, or a second value
  /// of an option that does not repeat, is an io::InputError naming it: a front end passed what the table lacks.
  void add(const std::string& name, std::string text);
  /// A flag given (a switch has no text).
  void add_flag(const std::string& name);
  /// A SOURCE given as a document (a Python dict), called `label` in errors.
  void add_document(const std::string& name, std::string label, nlohmann::json document);

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const GivenValue* find(const std::string& name) const;
  /// The text given, or the option's applied default; empty when neither (the option must be in the table).
  std::optional<std::string> text_or_default(const std::string& name) const;
  const CommandOptions& options() const { return *options_; }
  const std::map<std::string, GivenValue>& values() const { return values_; }

private:
  const Option& known(const std::string& name) const;

  const CommandOptions* options_;
  std::map<std::string, GivenValue> values_;
};

} // namespace ccsim::api
