#pragma once
// `validate`'s options: the table both front ends generate their arguments from, and the builder that reads what was
// given into a ValidationRequest (api/calibration/Validation.hpp).

#include "api/calibration/Validation.hpp"
#include "api/options/OptionTable.hpp"

#include <optional>
#include <string>

namespace ccsim::api {

struct ValidateCommand : ValidationRequest {
  std::optional<std::string> errors_out; // --errors-out FILE: every row's out-of-sample error with its regime
  std::optional<std::string> plot_dir;   // --plot DIR: paper vs predicted
};

const OptionTable<ValidateCommand>& validate_options();

ValidateCommand build_validate(const GivenValues& given);

/// Writes what the command's options ask for: --errors-out's file and --plot's figure.
void write_validate_files(const ValidateCommand& command, const ValidationResult& result);

} // namespace ccsim::api
