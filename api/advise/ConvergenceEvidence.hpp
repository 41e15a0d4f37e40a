#pragma once
// The convergence evidence `ccsim advise` ranks by (workloads/evidence/convergence.json, written by
// scripts/convergence-evidence.sh from real `ccsim train` runs over several seeds). A row is one algorithm on one proxy
// model in one regime (pre-training from scratch, or fine-tuning a pre-trained model), against its family's
// uncompressed baseline run with the same settings and seeds:
//   gap per seed  = (final held-out loss - the baseline's) / the baseline's;
//   converges     = yes when every seed's gap is within the claim's threshold, no when none is (or a run diverged),
//                   uncertain when the seeds straddle it;
//   steps_ratio   = the mean over the seeds that reach it of the steps to the target (the baseline's final loss plus
//                   the threshold) relative to the baseline's steps to the same target.

#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

enum class Converges { YES, NO, UNCERTAIN };
/// "yes", "no", "uncertain".
std::string to_string(Converges c);

struct EvidenceRow {
  std::string algorithm;
  std::string family;   // "data-parallel Adam", ...
  std::string baseline; // the uncompressed algorithm of the family (its steps_ratio is 1)
  std::string proxy;    // mlp, char-gpt, tiny-transformer
  std::string regime;   // "pre-training" or "fine-tuning"
  double threshold = 0; // the claim's relative gap (0.03: "within 3 %")
  std::vector<int> seeds;
  std::vector<std::optional<double>> final_loss;  // per seed; empty: the run diverged
  std::vector<double> baseline_final_loss;        // per seed
  Converges converges = Converges::NO;
  std::optional<double> steps_ratio; // set when at least one seed reaches the target
  std::string reason;                // why not, when it does not converge on every seed
  std::string command;               // the train run that measured it, with SEED for each of `seeds`

  /// Per-seed relative gaps (+infinity for a diverged run), their mean, min and max.
  std::vector<double> gaps() const;
  double mean_gap() const;
  double min_gap() const;
  double max_gap() const;
  /// "char-gpt pre-training: +1.0 % [-0.4, +2.0] over 3 seeds" (the numbers behind the verdict; the mean and range
  /// of the seeds that did not diverge, then ", 1 diverged").
  std::string summary() const;
  /// The mean gap and its range in a few characters, for a narrow table: "mlp +0.2 % [-1.3, +1.3]" (the regime is
  /// named when it is fine-tuning, the seeds that diverged are counted).
  std::string short_summary() const;
};

/// The evidence file at DATA_DIR/workloads/evidence/convergence.json.
std::string default_evidence_path();

/// Reads and validates an evidence file; errors are io::InputError "FILE: /json/path: problem", including a
/// `converges` that its own losses contradict.
std::vector<EvidenceRow> load_convergence_evidence(const std::string& path);

/// Every row of `algorithm` (over proxies, regimes and families), in file order.
std::vector<const EvidenceRow*> find_evidence(const std::vector<EvidenceRow>& rows, const std::string& algorithm);

} // namespace ccsim::api
