#pragma once
// `advise`'s options: the table both front ends generate their arguments from, and the builder that reads what was
// given into an AdviseRequest.

#include "api/advise/Advisor.hpp"
#include "api/options/OptionTable.hpp"

#include <optional>
#include <string>

namespace ccsim::api {

struct AdviseCommand : AdviseRequest {
  bool verify = false;                 // --verify: rerun the evidence's commands first (the command line's own)
  std::optional<std::string> plot_dir; // --plot DIR: the ranking figure
};

const OptionTable<AdviseCommand>& advise_options();

/// The given values read and checked, and the convergence evidence file loaded once (its own one-line errors come
/// before anything runs).
AdviseCommand build_advise(const GivenValues& given);

/// Draws the ranking into --plot's folder, when asked for.
void write_advise_files(const AdviseCommand& command, const AdviseReport& report);

} // namespace ccsim::api
