// libFuzzer target: a flag's value as typed (io::parse_number and io::parse_integer, which every numeric flag goes
// through): either a finite number in range or a one-line InputError naming the flag.
#include "io/JsonInput.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string text(reinterpret_cast<const char*>(data), size);
  const ccsim::io::Range range{-1e6, 1e6};
  auto check = [&](auto parse) {
    try {
      const double v = static_cast<double>(parse());
      if (!std::isfinite(v) || v < range.lo || v > range.hi) {
        std::fprintf(stderr, "ccsim fuzz: accepted %g outside the range\n", v);
        std::abort();
      }
    } catch (const ccsim::io::InputError& e) {
      const std::string msg = e.what();
      if (msg.find('\n') != std::string::npos || msg.find("--flag") == std::string::npos)
        std::abort();
    } catch (...) {
      std::abort();
    }
  };
  check([&] { return ccsim::io::parse_number(text, range, "--flag"); });
  check([&] { return ccsim::io::parse_integer(text, range, "--flag"); });
  return 0;
}
