#pragma once
// A Python call's keyword arguments as the command line's flags: the package (ccsim/_inputs.py) turns each value
// into the text a user would type after the flag (64, 2.5, "tcp"), and these read it with the very checks and
// messages of cli/Options.cpp: io/NumberInput's parse_integer / parse_number against the ranges of
// io/Limits.hpp, each error an io::InputError naming the flag ("--gpus: must be >= 1 and <= 65536 (got 0)").

#include "api/run/SimulateRequest.hpp"
#include "io/Limits.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ccsim::python {

/// Keyword arguments by flag name without its dashes ("global-batch" for global_batch), as text; absent = not given.
class Flags {
public:
  Flags() = default;
  explicit Flags(std::map<std::string, std::string> values) : values_(std::move(values)) {}

  bool has(const std::string& flag) const { return values_.count(flag) != 0; }
  std::optional<std::string> text(const std::string& flag) const;
  std::optional<std::int64_t> integer(const std::string& flag, const io::Range& range) const;
  std::optional<double> number(const std::string& flag, const io::Range& range) const;
  /// The value, which must be one of `choices` (the error lists them, as choice_flag does).
  std::optional<std::string> choice(const std::string& flag, const std::vector<std::string>& choices) const;

private:
  std::map<std::string, std::string> values_;
};

/// A topology or workload as Python gives it: a preset name or a path, or (with `json_text`) a dict written as JSON,
/// parsed here with the file loaders' limits and duplicate-key check (io/JsonFile.hpp) and called `name` in errors.
api::InputSource input_source(const std::string& name, const std::optional<std::string>& json_text);

/// What `ccsim simulate` reads from its flags, from keyword arguments: the shape (--gpus, --global-batch,
/// --micro-batch, --tp, --pp), the overrides, --param, --fidelity, --slow-gpu (rank -> factor, as text), the
/// straggler model and the switches.
struct SimulateArgs {
  api::InputSource topology, workload;
  std::string algorithm;
  Flags flags;
  std::map<std::string, std::string> params;
  std::vector<std::pair<std::string, std::string>> slow_gpus;
  bool links = false, trace = false, allow_oom = false;
};
api::SimulateRequest simulate_request(const SimulateArgs& args);

/// The shape flags alone (--gpus required; --global-batch, --micro-batch; --tp, --pp when `parallelism`), as
/// cli/ShapeFlags.cpp reads them.
void read_shape(const Flags& flags, api::SimulateRequest& req, bool parallelism);

} // namespace ccsim::python
