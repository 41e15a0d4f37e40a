// Output files with checked writes.
#include "api/output/OutputFile.hpp"

#include "sim/io/JsonInput.hpp"

#include <fstream>

namespace ccsim::api {

void make_output_folder(const std::filesystem::path& dir, const std::string& option)
{
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw io::InputError(option, "", "cannot create folder " + io::echo(dir.string()) + ": " + ec.message());
}

void write_output_file(const std::filesystem::path& file, const std::string& text, const std::string& option)
{
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out)
    throw io::InputError(option, "", "cannot write " + io::echo(file.string()));
}

} // namespace ccsim::api
