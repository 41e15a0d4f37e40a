#pragma once
// The body shared by ccsim's libFuzzer targets (issue 11): hand the fuzzer's bytes to one loader as a file, and
// turn any breach of the input contract into a crash libFuzzer records — an exception other than io::InputError,
// an InputError of more than one line or without the file's name. Sanitizer reports (ASan, UBSan) crash by
// themselves. Run them with scripts/fuzz.sh.

#include "io/JsonInput.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <unistd.h>

namespace ccsim::fuzz {

/// A file of this process for the current input (loaders read paths, as users give them).
inline const std::string& input_path()
{
  static const std::string path = "/tmp/ccsim-fuzz-" + std::to_string(getpid()) + ".json";
  return path;
}

template <typename Load> int run_loader(const std::uint8_t* data, std::size_t size, Load load)
{
  {
    std::ofstream out(input_path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    load(input_path());
  } catch (const io::InputError& e) {
    const std::string msg = e.what();
    if (msg.find('\n') != std::string::npos || msg.find(input_path()) == std::string::npos) {
      std::fprintf(stderr, "ccsim fuzz: reject breaks the one-line contract: %s\n", msg.c_str());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ccsim fuzz: not an InputError: %s\n", e.what());
    std::abort();
  }
  return 0;
}

} // namespace ccsim::fuzz
