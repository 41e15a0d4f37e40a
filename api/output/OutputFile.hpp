#pragma once
// Writing result files: a folder that cannot be made or a file that cannot be written is one InputError naming the
// path and the flag that chose it, never a silently missing file.

#include <filesystem>
#include <string>

namespace ccsim::api {

/// Creates `dir` (and its parents) or throws io::InputError(option, ...).
void make_output_folder(const std::filesystem::path& dir, const std::string& option);

/// Writes `text` to `file` (replacing it) or throws io::InputError(option, ...).
void write_output_file(const std::filesystem::path& file, const std::string& text, const std::string& option);

} // namespace ccsim::api
