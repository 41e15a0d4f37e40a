// Output files with checked writes.
#include "cli/OutputFile.hpp"

#include "sim/io/JsonInput.hpp"

#include <cerrno>
#include <fstream>
#include <unistd.h>

namespace ccsim::cli {

void make_output_folder(const std::filesystem::path& dir, const std::string& option)
{
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw io::InputError(option, "", "cannot create folder " + io::echo(dir.string()) + ": " + ec.message());
}

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

void write_output_file(const std::filesystem::path& file, const std::string& text, const std::string& option)
{
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out)
    throw io::InputError(option, "", "cannot write " + io::echo(file.string()));
}

} // namespace ccsim::cli
