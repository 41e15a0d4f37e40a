#pragma once
// Test helper: the one-line message of the io::InputError a call throws, or "(no InputError)".

#include "io/JsonInput.hpp"

#include <functional>
#include <string>

namespace ccsim::test {

inline std::string message_of(const std::function<void()>& f)
{
  try {
    f();
  } catch (const io::InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

} // namespace ccsim::test
