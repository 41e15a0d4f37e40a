#pragma once
// One option of a command, as its table declares it (api/options/OptionTable.hpp): its name, what kind of value it
// takes, the range or choices that value must fall in, its default, its help text, and which front ends offer it.
// The command line's flags (cli/Options.hpp) and the Python keyword arguments (python/ccsim/_commands.py) are
// both generated from these, so an option is declared once. git's option tables (parse-options.h: OPT_INTEGER,
// OPT_BOOL, ... in one array per command) are the model.

#include "io/Limits.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

/// What an option's value is. The Python keyword takes the Python value written beside each kind; the package turns
/// it into the text a user would type after the flag, so both front ends are read by the same parsers.
enum class OptionKind {
  TEXT,      // a name as typed: an algorithm, an operation, a JSON pointer (Python: str)
  SOURCE,    // a preset name or a JSON file (Python: also a dict, the document itself)
  PRESET,    // a preset name or a path, never a document (Python: str or os.PathLike)
  PATH,      // a file or folder to read or write (Python: str or os.PathLike)
  INTEGER,   // a whole number in `range` (Python: int)
  NUMBER,    // a finite number in `range` (Python: int or float)
  SIZE,      // bytes as nccl-tests writes them: a whole number with an optional K, M or G suffix (Python: int or str)
  CHOICE,    // one of `choices` (Python: str)
  ON_OFF,    // on | off (Python: True | False)
  FLAG,      // a switch without a value (Python: True | False)
  LIST,      // comma-separated items: whole numbers in `range` when it is set, else names (Python: a list or one item)
  KEY_VALUE, // KEY<separator>VALUE, repeatable (Python: a dict)
};

/// The kind's name as `_core.options()` and the docs write it ("integer", "key=value", ...).
const char* to_string(OptionKind kind);

struct Option {
  std::string name; // the long flag without its dashes ("global-batch"); errors name the option by it
  OptionKind kind = OptionKind::TEXT;
  std::string help;
  std::optional<io::Range> range;   // INTEGER, NUMBER, SIZE, and LIST of whole numbers
  std::vector<std::string> choices; // CHOICE
  /// The default the help shows ("(=fast)"); applied when the option is not given unless `default_shown_only` (the
  /// value then depends on other options, and the help text says how).
  std::string default_text;
  bool default_shown_only = false;
  bool required           = false;
  bool repeats            = false; // given several times (the command line) or as a list (Python)
  bool positional         = false; // the command line also takes it as its first bare argument
  /// Python takes it by position too, after the required options, though it is optional: an option that was required
  /// once (calibrate's out) keeps the calls that passed it by position working.
  bool python_positional = false;
  std::string value_name;          // the help's placeholder ("N", "FILE.json"); empty: Boost's "arg"
  char short_name = '\0';          // a one-letter alias on the command line ('b' for -b)
  char separator  = '=';           // KEY_VALUE: between key and value
  /// CHOICE: the value the option means when given bare (`--recompute` is `--recompute full`; Python: True). Empty:
  /// the option always takes a value.
  std::string bare_value;
  std::size_t max_items = 0;       // LIST, repeatable: the most different items (0: io::limits::kMaxListItems)
  /// The Python keyword; empty: the name with '_' for '-' ("global_batch").
  std::string python_name;
  /// Non-empty: the option exists on the command line only, and this says why (a terminal's concern, or what a
  /// Python session does instead). The parity test and docs/user-guide.md list each.
  std::string cli_only;

  /// The Python keyword (python_name, or the name with '_' for '-').
  std::string python() const;
  /// How a message names the option: "--gpus". Front ends render it in their own spelling (OptionSpelling.hpp).
  std::string ref() const { return "--" + name; }

  // Chained modifiers, so that a table line reads as one declaration: integer_option("gpus", ...).needed().value("N").
  Option& needed();
  Option& value(std::string placeholder);
  Option& defaults(std::string text);
  Option& shows_default(std::string text);
  Option& alias(char letter);
  Option& in_python(std::string keyword);
  Option& command_line_only(std::string why);
  Option& repeatable();
  Option& first_argument();
  Option& positional_in_python();
  Option& bare(std::string value);
};

// One constructor per kind.
Option text_option(std::string name, std::string help);
Option source_option(std::string name, std::string help);
Option preset_option(std::string name, std::string help);
Option path_option(std::string name, std::string help);
Option integer_option(std::string name, io::Range range, std::string help);
Option number_option(std::string name, io::Range range, std::string help);
Option size_option(std::string name, io::Range range, std::string help);
Option choice_option(std::string name, std::vector<std::string> choices, std::string help);
Option on_off_option(std::string name, std::string help);
Option flag_option(std::string name, std::string help);
/// Names ("adam,onebit-adam"); with `range`, whole numbers ("4,8"). Repeats count once; at most `max_items` different
/// ones (0: io::limits::kMaxListItems).
Option list_option(std::string name, std::optional<io::Range> range, std::size_t max_items, std::string help);
Option key_value_option(std::string name, char separator, std::string help);

} // namespace ccsim::api
