#pragma once
// Writing to a pipe or an open file without losing a byte to EINTR or a short write.

#include <string_view>

namespace ccsim::api {

/// Writes all of `text` to the open descriptor `fd`, resuming after EINTR and short writes. False on any other error.
bool write_fully(int fd, std::string_view text);

} // namespace ccsim::api
