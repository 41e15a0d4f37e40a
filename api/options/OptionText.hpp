#pragma once
// An option's text as the value its kind says (Option.hpp), checked against the option's range or choices: the one
// place both front ends' values are parsed. Every problem is an io::InputError whose `where` is the option's
// reference ("--gpus"), which each front end renders in its own spelling (OptionSpelling.hpp). Numbers go through
// io::parse_integer / io::parse_number, so "-1" never wraps and "nan" is never a number.

#include "api/options/GivenValues.hpp"
#include "api/run/SimulateRequest.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ccsim::api {

/// INTEGER: a whole number in the option's range; SIZE: the same with an optional K, M or G suffix (powers of 1024,
/// as nccl-tests' parsesize), checked against the range after scaling.
std::int64_t read_whole(const std::string& text, const Option& option);
/// NUMBER: a finite number in the option's range.
double read_number(const std::string& text, const Option& option);
/// CHOICE and ON_OFF: one of the option's choices (the error lists them); other kinds: the text as given.
std::string read_text(const std::string& text, const Option& option);
/// FLAG: true when given; ON_OFF: on -> true, off -> false.
bool read_switch(const GivenValue& value, const Option& option);
/// LIST of whole numbers: comma-separated, each in the option's range. A repeated item counts once (the first
/// stays, in order); at most max_items different ones (io::limits::kMaxListItems where the option sets none).
std::vector<std::int64_t> read_integer_list(const std::string& text, const Option& option);
/// LIST of names: comma-separated; an empty item is an error. Repeats and the cap as read_integer_list.
std::vector<std::string> read_name_list(const std::string& text, const Option& option);
/// A repeatable option's values (--nccl-tests A --nccl-tests B): repeats and the cap as read_integer_list.
std::vector<std::string> read_repeated(const std::vector<std::string>& texts, const Option& option);
/// KEY_VALUE: the key and the value on either side of the first separator, neither empty.
std::pair<std::string, std::string> read_key_value(const std::string& text, const Option& option);
/// SOURCE or PRESET: the preset name or path, or (SOURCE) the document a Python dict gave.
InputSource read_source(const GivenValue& value, const Option& option);

} // namespace ccsim::api
