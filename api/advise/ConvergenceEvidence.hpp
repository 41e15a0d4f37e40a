#pragma once
// The convergence evidence `ccsim advise` ranks by (workloads/evidence/convergence.json, written by
// scripts/convergence-evidence.sh from real `ccsim train` runs over several seeds). A row is one algorithm on one proxy
// model in one regime (pre-training from scratch, or fine-tuning a pre-trained model), against its family's
// uncompressed baseline run with the same settings and seeds:
//   gap per seed  = (final held-out loss - the baseline's) / the baseline's, paired by seed;
//   converges     = from the 90 % confidence interval of the mean gap (Student's t with n - 1 degrees of freedom,
//                   issue 42): yes when the whole interval is within the claim's threshold, no when it lies wholly
//                   above it (or any seed diverged: that run's gap is unbounded), uncertain when it straddles it;
//   steps_ratio   = the mean over the seeds that reach it of the steps to the target (the baseline's final loss plus
//                   the threshold) relative to the baseline's steps to the same target; `steps_ratios` (optional)
//                   holds each seed's ratio, so that the script can add seeds to a file without training the old ones
//                   again (scripts/convergence-evidence.sh --resume).

#include <optional>
#include <string>
#include <vector>

namespace ccsim::api {

enum class Converges { YES, NO, UNCERTAIN };
/// "yes", "no", "uncertain".
std::string to_string(Converges c);

/// The 0.95 quantile of Student's t with `degrees_of_freedom` >= 1 (the half-width factor of a two-sided 90 %
/// interval): tabulated to 30, then the Cornish-Fisher expansion (within 1e-4 there).
double student_t_95(int degrees_of_freedom);

/// The mean of the gaps of the seeds that did not diverge and its 90 % confidence interval
/// mean ± t(0.95, n-1)·s/sqrt(n); the interval is unbounded (±infinity) with fewer than 2 such seeds.
struct GapInterval {
  std::size_t seeds    = 0; // seeds whose run did not diverge (n)
  std::size_t diverged = 0;
  double mean = 0, low = 0, high = 0;
};
GapInterval gap_interval(const std::vector<double>& finite_gaps, std::size_t diverged);
/// The verdict from an interval: no when a seed diverged or the interval lies above `threshold`, yes when it lies
/// within, uncertain otherwise.
Converges verdict_of(const GapInterval& interval, double threshold);

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
  std::vector<std::optional<double>> steps_ratios; // per seed where the file has them (empty: not reached)
  std::string reason;                // why not, when it does not converge
  std::string command;               // the train run that measured it, with SEED for each of `seeds`
  /// A quick reproduction check (optional): `command` with SEED = seed and `--stop-after stop_after` gives this
  /// held-out loss (rounded to 6 decimals; empty: not finite). scripts/convergence-evidence.sh --check reruns it.
  struct Check {
    int seed       = 0;
    int stop_after = 0;
    std::optional<double> held_out_loss;
  };
  std::optional<Check> check;

  /// Per-seed relative gaps (+infinity for a diverged run), their mean, min and max.
  std::vector<double> gaps() const;
  double mean_gap() const;
  double min_gap() const;
  double max_gap() const;
  /// The mean gap of the seeds that did not diverge and its 90 % interval: what `converges` comes from.
  GapInterval interval() const;
  /// "char-gpt pre-training: +1.0 % [-0.4, +2.0] over 10 seeds" (the numbers behind the verdict: the mean gap and
  /// its 90 % interval over the seeds that did not diverge, then ", 1 diverged").
  std::string summary() const;
  /// The mean gap and its 90 % interval in a few characters, for a narrow table: "mlp +0.2 % [-0.6, +1.0]" (the
  /// regime is named when it is fine-tuning, the seeds that diverged are counted).
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
