#pragma once
// Every command's option table, by command name: what the Python package generates its keyword arguments from
// (_core.options) and what the parity tests walk. A new command's table is one line in CommandTables.cpp.

#include "api/options/GivenValues.hpp"

#include <string>
#include <vector>

namespace ccsim::api {

/// The commands with a table, in `ccsim --help` order.
const std::vector<const CommandOptions*>& command_tables();
/// The table of `command`; an unknown name throws io::InputError("ccsim", ...).
const CommandOptions& command_table(const std::string& command);

} // namespace ccsim::api
