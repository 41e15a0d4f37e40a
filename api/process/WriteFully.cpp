#include "api/process/WriteFully.hpp"

#include <cerrno>
#include <unistd.h>

namespace ccsim::api {

bool write_fully(int fd, std::string_view text)
{
  while (!text.empty()) {
    const ssize_t n = write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

} // namespace ccsim::api
