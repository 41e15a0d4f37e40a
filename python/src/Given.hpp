#pragma once
// A Python call's arguments as a command's given values (api/options/GivenValues.hpp). The package
// (ccsim/_commands.py) writes each keyword's value as the text a user would type after the flag (64, 2.5, "tcp"; a
// list as "8,16"; a dict of --param as ["k=v", ...]; a flag as no text at all) and a dict topology, workload or
// experiment as JSON, so the command's own builder reads them with the command line's parsers and ranges. Its errors
// name the option by the command line's reference ("--gpus"); python_errors renders them in Python's spelling
// ("gpus", "allow_oom=True": api/options/OptionSpelling.hpp) before they reach the caller.

#include "api/options/GivenValues.hpp"
#include "api/options/OptionSpelling.hpp"

#include "io/InputError.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ccsim::python {

/// Keyword texts by option name ("global-batch"): one per value (none for a flag given as True).
using Texts = std::map<std::string, std::vector<std::string>>;
/// Documents by option name: (label, JSON text) of a dict given for a topology, workload or experiment.
using Documents = std::map<std::string, std::pair<std::string, std::string>>;

/// The given values of `options`' command from Python's texts and documents.
api::GivenValues given_values(const api::CommandOptions& options, const Texts& texts, const Documents& documents);

/// Runs `work`, its io::InputError rendered in Python's spelling for `options`' command.
template <class Work>
auto python_errors(const api::CommandOptions& options, Work&& work) -> decltype(work())
{
  try {
    return work();
  } catch (const io::InputError& e) {
    throw api::for_python(e, options);
  }
}

} // namespace ccsim::python
