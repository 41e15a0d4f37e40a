#pragma once
// Writing result files: a folder that cannot be made or a file that cannot be written is one InputError naming the
// path and the flag that chose it, never a silently missing file. A file is replaced atomically (a temporary file in
// the same folder, flushed to disk, renamed over it), so a reader, a kill or a full disk sees the old file whole or
// the new one whole, never a part; and a path that exists as something other than a regular file (a FIFO would block
// the writer, a device would swallow the results) is refused.

#include <filesystem>
#include <string>

namespace ccsim::api {

/// Creates `dir` (and its parents) or throws io::InputError(option, ...).
void make_output_folder(const std::filesystem::path& dir, const std::string& option);

/// Writes `text` to `file` atomically (see above) or throws io::InputError(option, ...).
void write_output_file(const std::filesystem::path& file, const std::string& text, const std::string& option);

/// Throws io::InputError(option, ...) when `file` exists and is not a regular file (a folder, a FIFO, a device, a
/// socket). Symbolic links are followed: a link to a regular file is one.
void refuse_non_regular(const std::filesystem::path& file, const std::string& option);

} // namespace ccsim::api
