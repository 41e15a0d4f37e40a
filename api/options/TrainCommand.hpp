#pragma once
// `train`'s options: the table both front ends generate their arguments from, and the builder that reads what was
// given into a TrainRequest.

#include "api/options/OptionTable.hpp"
#include "api/training/TrainRuns.hpp"

#include <map>
#include <optional>
#include <string>

namespace ccsim::api {

struct TrainCommand : TrainRequest {
  std::string algorithm_text;                // --algorithm as given ("adam,onebit-adam"), for its errors
  std::map<std::string, std::string> params; // --param key=value, read by train_hyper for the algorithms
  std::string backend = "cpu";               // where the compressors' kernels run (request.kernels)
  std::optional<std::string> plot_dir;       // --plot DIR: the loss curves
};

const OptionTable<TrainCommand>& train_options();

/// The given values read and checked: the backend's kernels found, --topology with --gpus, the parameters against
/// the algorithms that read them, --pretrain-steps and --cache-dir only with --task finetune.
TrainCommand build_train(const GivenValues& given);

/// Draws the loss curves of `runs` (train's JSON runs) into --plot's folder, when asked for.
void write_train_files(const TrainCommand& command, const nlohmann::json& runs);

} // namespace ccsim::api
