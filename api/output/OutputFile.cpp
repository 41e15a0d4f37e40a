// Output files: checked, atomic writes. See OutputFile.hpp.
#include "api/output/OutputFile.hpp"

#include "api/process/WriteFully.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ccsim::api {

namespace fs = std::filesystem;

void make_output_folder(const fs::path& dir, const std::string& option)
{
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw io::InputError(option, "", "cannot create folder " + io::echo(dir.string()) + ": " + ec.message());
}

void refuse_non_regular(const fs::path& file, const std::string& option)
{
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0)
    return; // absent (or a dangling link): opening it says what is wrong
  if (S_ISDIR(st.st_mode))
    throw io::InputError(option, "", fmt::format("{} is a folder, not a file", io::echo(file.string())));
  if (!S_ISREG(st.st_mode))
    throw io::InputError(option, "",
                         fmt::format("{} is not a regular file (a FIFO, device or socket)", io::echo(file.string())));
}

void write_output_file(const fs::path& file, const std::string& text, const std::string& option)
{
  refuse_non_regular(file, option);
  // The temporary file sits beside the target (a rename stays within one file system) and is named after this
  // process, so two writers never share one.
  const fs::path tmp = file.parent_path() / fmt::format(".{}.tmp{}", file.filename().string(), getpid());
  const auto fail    = [&](const std::string& what) {
    const std::string reason = std::strerror(errno);
    std::error_code ec;
    fs::remove(tmp, ec);
    throw io::InputError(option, "", fmt::format("cannot {} {}: {}", what, io::echo(file.string()), reason));
  };
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd < 0)
    fail("write");
  if (!write_fully(fd, text)) {
    close(fd);
    fail("write");
  }
  // fsync before rename: after a crash the name points to the whole new file or still to the old one.
  if (fsync(fd) != 0) {
    close(fd);
    fail("flush");
  }
  if (close(fd) != 0)
    fail("write");
  if (::rename(tmp.c_str(), file.c_str()) != 0)
    fail("replace");
}

} // namespace ccsim::api
