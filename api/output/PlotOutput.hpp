#pragma once
// `--plot DIR` of every subcommand that draws: the results document goes to DIR/<results_file>, then
// plots/<script> draws from it beside; a figure that could not be drawn for want of matplotlib is a warning, and a
// script that failed on the results is FigureFailed (exit 5), its last line the reason.

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace ccsim::api {

/// Writes `doc` to dir/results_file (creating dir; bad paths throw io::InputError("--plot", ...)) and runs
/// plots/<script> on it. Without matplotlib it warns on stderr: "ccsim <command>: warning: <what> was not drawn ...";
/// when the script fails it throws FigureFailed("<what> was not drawn: plots/<script> failed: <its last line>").
void plot_into(const std::filesystem::path& dir, const std::string& results_file, const nlohmann::json& doc,
               const std::string& script, const std::string& command, const std::string& what);

} // namespace ccsim::api
