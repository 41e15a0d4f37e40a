// The output folder's lock; see FolderLock.hpp.
#include "api/output/FolderLock.hpp"

#include "api/output/OutputFile.hpp"
#include "api/process/WriteFully.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace ccsim::api {

namespace fs = std::filesystem;

fs::path lock_file_path(const fs::path& dir)
{
  return dir / ".ccsim.lock";
}

FolderLock::FolderLock(const fs::path& dir, const std::string& option)
{
  const fs::path file = lock_file_path(dir);
  refuse_non_regular(file, option);
  fd_ = open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
  if (fd_ < 0)
    throw io::InputError(option, "", fmt::format("cannot lock {}: {}", io::echo(dir.string()), std::strerror(errno)));
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char pid[32]  = {};
    const ssize_t n = pread(fd_, pid, sizeof pid - 1, 0);
    close(fd_);
    fd_ = -1;
    if (err != EWOULDBLOCK)
      throw io::InputError(option, "", fmt::format("cannot lock {}: {}", io::echo(dir.string()), std::strerror(err)));
    std::string holder(pid, n > 0 ? static_cast<std::size_t>(n) : 0);
    holder = holder.substr(0, holder.find_first_not_of("0123456789"));
    throw io::InputError(option, "",
                         fmt::format("{} is in use by another ccsim run ({}): two runs must not write into one folder; "
                                     "wait for it to finish or choose another folder",
                                     io::echo(dir.string()), holder.empty() ? "pid unknown" : "pid " + holder));
  }
  // Ours: say who holds it. (A reader that comes between the lock and this write finds no pid and says so.)
  const std::string me = std::to_string(getpid()) + "\n";
  if (ftruncate(fd_, 0) != 0 || !write_fully(fd_, me)) {
    const int err = errno;
    close(fd_);
    fd_ = -1;
    errno = err;
    throw io::InputError(option, "", fmt::format("cannot write {}: {}", io::echo(file.string()), std::strerror(errno)));
  }
}

FolderLock::~FolderLock()
{
  if (fd_ >= 0)
    close(fd_); // releases the lock
}

} // namespace ccsim::api
