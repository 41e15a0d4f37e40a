#pragma once
// The convergence evidence `ccsim advise` ranks by (workloads/evidence/convergence.json, written by
// scripts/convergence-evidence.sh from real `ccsim train` runs): for each algorithm, whether it reaches its family's
// uncompressed target loss on a proxy model, and in how many steps relative to that family's baseline.

#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

struct EvidenceRow {
  std::string algorithm;
  std::string family;   // "data-parallel Adam", ...
  std::string baseline; // the uncompressed algorithm of the family (its steps_ratio is 1)
  bool converges = false;
  std::optional<double> steps_ratio; // steps to target / baseline's steps; set exactly when converges
  std::string reason;                // why not, when it does not converge
  std::string command;               // the train run that measured it
};

/// The evidence file at DATA_DIR/workloads/evidence/convergence.json.
std::string default_evidence_path();

/// Reads and validates an evidence file; errors are io::InputError "FILE: /json/path: problem".
std::vector<EvidenceRow> load_convergence_evidence(const std::string& path);

/// The row of `algorithm`, if the evidence has one.
const EvidenceRow* find_evidence(const std::vector<EvidenceRow>& rows, const std::string& algorithm);

} // namespace ccsim::api
