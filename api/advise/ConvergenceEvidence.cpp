#include "api/advise/ConvergenceEvidence.hpp"

#include "algorithms/PlanAlgorithm.hpp"
#include "algorithms/Registry.hpp"
#include "io/JsonInput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

namespace ccsim::api {

std::string to_string(Converges c)
{
  switch (c) {
  case Converges::YES: return "yes";
  case Converges::UNCERTAIN: return "uncertain";
  case Converges::NO: break;
  }
  return "no";
}

double student_t_95(int degrees_of_freedom)
{
  // t(0.95, v) for v = 1..30 (the standard table; e.g. NIST/SEMATECH e-Handbook §1.3.6.7.2), then the
  // Cornish-Fisher expansion in 1/v around the normal quantile z (Abramowitz & Stegun 26.7.5), 1e-5 off at v = 31.
  static constexpr double kTable[30] = {6.3138, 2.9200, 2.3534, 2.1318, 2.0150, 1.9432, 1.8946, 1.8595, 1.8331, 1.8125,
                                        1.7959, 1.7823, 1.7709, 1.7613, 1.7531, 1.7459, 1.7396, 1.7341, 1.7291, 1.7247,
                                        1.7207, 1.7171, 1.7139, 1.7109, 1.7081, 1.7056, 1.7033, 1.7011, 1.6991, 1.6973};
  if (degrees_of_freedom < 1)
    return std::numeric_limits<double>::infinity();
  if (degrees_of_freedom <= 30)
    return kTable[degrees_of_freedom - 1];
  const double z = 1.6448536269514722, v = degrees_of_freedom;
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

GapInterval gap_interval(const std::vector<double>& finite_gaps, std::size_t diverged)
{
  GapInterval g;
  g.seeds    = finite_gaps.size();
  g.diverged = diverged;
  g.low      = -std::numeric_limits<double>::infinity();
  g.high     = std::numeric_limits<double>::infinity();
  if (finite_gaps.empty())
    return g;
  const double n = static_cast<double>(finite_gaps.size());
  g.mean         = std::accumulate(finite_gaps.begin(), finite_gaps.end(), 0.0) / n;
  if (finite_gaps.size() < 2)
    return g;
  double squares = 0;
  for (const double x : finite_gaps)
    squares += (x - g.mean) * (x - g.mean);
  const double half = student_t_95(static_cast<int>(finite_gaps.size()) - 1) * std::sqrt(squares / (n - 1)) / std::sqrt(n);
  g.low             = g.mean - half;
  g.high            = g.mean + half;
  return g;
}

Converges verdict_of(const GapInterval& interval, double threshold)
{
  if (interval.diverged > 0 || interval.low > threshold)
    return Converges::NO;
  return interval.high <= threshold ? Converges::YES : Converges::UNCERTAIN;
}

std::vector<double> EvidenceRow::gaps() const
{
  std::vector<double> out;
  for (std::size_t i = 0; i < final_loss.size(); ++i)
    out.push_back(final_loss[i] ? (*final_loss[i] - baseline_final_loss[i]) / baseline_final_loss[i]
                                : std::numeric_limits<double>::infinity());
  return out;
}

double EvidenceRow::mean_gap() const
{
  const auto g = gaps();
  return std::accumulate(g.begin(), g.end(), 0.0) / static_cast<double>(g.size());
}

double EvidenceRow::min_gap() const
{
  const auto g = gaps();
  return *std::min_element(g.begin(), g.end());
}

double EvidenceRow::max_gap() const
{
  const auto g = gaps();
  return *std::max_element(g.begin(), g.end());
}

GapInterval EvidenceRow::interval() const
{
  std::vector<double> finite;
  for (double g : gaps())
    if (std::isfinite(g))
      finite.push_back(g);
  GapInterval g = gap_interval(finite, seeds.size() - finite.size());
  // The baseline's own row: a gap of exactly 0 on every seed, so [0, 0] however few seeds.
  if (g.diverged == 0 && std::all_of(finite.begin(), finite.end(), [](double x) { return x == 0; }))
    g.low = g.high = g.mean = 0;
  return g;
}

namespace {
/// The mean gap of the seeds that did not diverge and its 90 % interval as "+m % [+lo, +hi]" (percent; "+m % [one
/// seed]" for a single one), and how many seeds diverged; empty text when all did.
std::pair<std::string, std::size_t> finite_gap_text(const EvidenceRow& row)
{
  const GapInterval g = row.interval();
  if (g.seeds == 0)
    return {"", g.diverged};
  if (g.seeds == 1)
    return {fmt::format("{:+.1f} % [one seed]", 100 * g.mean), g.diverged};
  return {fmt::format("{:+.1f} % [{:+.1f}, {:+.1f}]", 100 * g.mean, 100 * g.low, 100 * g.high), g.diverged};
}
} // namespace

std::string EvidenceRow::summary() const
{
  const auto [text, diverged] = finite_gap_text(*this);
  if (text.empty())
    return fmt::format("{} {}: diverged on all {} seeds", proxy, regime, seeds.size());
  return fmt::format("{} {}: {} over {} seeds{}", proxy, regime, text, seeds.size(),
                     diverged > 0 ? fmt::format(", {} diverged", diverged) : "");
}

std::string EvidenceRow::short_summary() const
{
  const std::string where = proxy + (regime == "fine-tuning" ? " fine-tuning" : "");
  if (algorithm == baseline)
    return where + " (the baseline)";
  const auto [text, diverged] = finite_gap_text(*this);
  if (text.empty())
    return where + " diverged";
  return fmt::format("{} {}{}", where, text, diverged > 0 ? fmt::format(" ({} diverged)", diverged) : "");
}

std::string default_evidence_path()
{
  return (std::filesystem::path(io::data_dir()) / "workloads" / "evidence" / "convergence.json").string();
}

std::vector<EvidenceRow> load_convergence_evidence(const std::string& path)
{
  const auto doc = io::read_json_file(path);
  if (!doc.is_object())
    throw io::InputError(path, "", "must be a JSON object with \"rows\"");
  const io::JsonObject root(doc, path);
  root.allow_only({"description", "source", "rows"});
  constexpr io::Range kLoss{0, 1e6, true};
  constexpr io::Range kRatio{0, 1e6, true};
  constexpr io::Range kThreshold{0, 10};
  constexpr io::Range kSeed{0, 9007199254740992.0};
  std::vector<EvidenceRow> rows;
  std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;
  const auto objects = root.objects("rows");
  if (objects.empty()) // advise would rank every algorithm as "no evidence" and say nothing was wrong
    root.fail_at("rows", "lists no algorithm");
  // Each row is about an algorithm advise can rank; a misspelt one would silently leave the real one without evidence.
  const auto known = [](const io::JsonObject& r, const char* key) {
    const std::string name = r.string(key);
    if (algorithms::find_plan_algorithm(name) == nullptr)
      r.fail_at(key, io::echo(name) + " is not an algorithm ccsim simulates (ccsim list algorithms)");
    return name;
  };
  for (const auto& r : objects) {
    r.allow_only({"algorithm", "family", "baseline", "proxy", "regime", "threshold", "seeds", "final_loss",
                  "baseline_final_loss", "gap_mean", "gap_interval_90", "converges", "steps_ratio", "steps_ratios",
                  "reason", "check", "command"});
    EvidenceRow row;
    row.algorithm = known(r, "algorithm");
    row.family    = r.string("family");
    row.baseline  = known(r, "baseline");
    // A row measures its algorithm against its family's baseline (the algorithm's descriptor names it).
    if (const auto& expected = algorithms::algorithm_named(row.algorithm).baseline; row.baseline != expected)
      r.fail_at("baseline", fmt::format("is {}, but {} is compared against {}", io::echo(row.baseline), row.algorithm,
                                        io::echo(expected)));
    row.proxy     = r.string("proxy");
    row.regime    = r.choice("regime", {"pre-training", "fine-tuning"});
    row.threshold = r.number_in("threshold", kThreshold);
    row.command   = r.string("command");
    row.reason    = r.string_or("reason", "");
    for (const double s : r.numbers("seeds")) {
      io::check_range(s, kSeed, /*integer=*/true, path, r.child_pointer("seeds"));
      row.seeds.push_back(static_cast<int>(s));
    }
    if (row.seeds.empty())
      r.fail_at("seeds", "names no seed");
    // final_loss: a loss per seed, null where the run diverged (its parameters overflowed).
    const auto& finals = r.raw().contains("final_loss") ? r.raw().at("final_loss") : nlohmann::json();
    if (!finals.is_array() || finals.size() != row.seeds.size())
      r.fail_at("final_loss", fmt::format("must be an array of {} losses (one per seed; null: diverged)", row.seeds.size()));
    for (const auto& f : finals) {
      if (f.is_null())
        row.final_loss.emplace_back();
      else if (f.is_number() && f.get<double>() >= 0 && std::isfinite(f.get<double>()))
        row.final_loss.emplace_back(f.get<double>());
      else
        r.fail_at("final_loss", "holds " + io::dump_json(f) + ", not a loss >= 0 or null");
    }
    row.baseline_final_loss = r.numbers("baseline_final_loss");
    if (row.baseline_final_loss.size() != row.seeds.size())
      r.fail_at("baseline_final_loss", fmt::format("must hold {} losses, one per seed", row.seeds.size()));
    for (const double b : row.baseline_final_loss)
      if (!(b > kLoss.lo) || b > kLoss.hi)
        r.fail_at("baseline_final_loss", fmt::format("holds {}, not a loss > 0", b));
    // The statistics and the verdict are the losses' own: a file whose numbers they contradict is wrong, not advice.
    // gap_mean and gap_interval_90 are optional (the script writes them, rounded to 6 decimals).
    const GapInterval g = row.interval();
    if (r.has("gap_mean")) {
      const auto& m = r.raw().at("gap_mean");
      const bool agrees = g.seeds == 0 ? m.is_null() : m.is_number() && std::abs(m.get<double>() - g.mean) <= 1e-6;
      if (!agrees)
        r.fail_at("gap_mean", fmt::format("is {}, but its losses give {}", io::dump_json(m),
                                          g.seeds == 0 ? std::string("null (every seed diverged)")
                                                       : fmt::format("{:.6f}", g.mean)));
    }
    if (r.has("gap_interval_90")) {
      const auto& i     = r.raw().at("gap_interval_90");
      const bool bounded = std::isfinite(g.low) && std::isfinite(g.high);
      const bool agrees  = bounded ? i.is_array() && i.size() == 2 && i[0].is_number() && i[1].is_number() &&
                                        std::abs(i[0].get<double>() - g.low) <= 1e-6 &&
                                        std::abs(i[1].get<double>() - g.high) <= 1e-6
                                   : i.is_null();
      if (!agrees)
        r.fail_at("gap_interval_90",
                  fmt::format("is {}, but its losses give {}", io::dump_json(i),
                              bounded ? fmt::format("[{:.6f}, {:.6f}]", g.low, g.high)
                                      : std::string("null (fewer than 2 seeds that did not diverge)")));
    }
    row.converges        = verdict_of(g, row.threshold);
    const auto converges = r.choice("converges", {"yes", "no", "uncertain"});
    if (converges != to_string(row.converges))
      r.fail_at("converges", fmt::format("is {}, but its losses give {} ({} against a threshold of {:g} %)", converges,
                                         to_string(row.converges), row.summary(), 100 * row.threshold));
    if (r.has("steps_ratio") && !r.raw().at("steps_ratio").is_null())
      row.steps_ratio = r.number_in("steps_ratio", kRatio);
    if (row.converges == Converges::YES && !row.steps_ratio)
      r.fail_at("steps_ratio", "is null, but every seed reaches the target");
    // steps_ratios: each seed's ratio (null: that seed never reached the target); steps_ratio is their mean, as the
    // script writes it (4 decimals of the mean of the 6-decimal ratios).
    if (r.has("steps_ratios")) {
      const auto& per_seed = r.raw().at("steps_ratios");
      if (!per_seed.is_array() || per_seed.size() != row.seeds.size())
        r.fail_at("steps_ratios", fmt::format("must be an array of {} ratios (one per seed; null: not reached)",
                                              row.seeds.size()));
      double sum = 0;
      int reached = 0;
      for (const auto& x : per_seed) {
        if (x.is_null()) {
          row.steps_ratios.emplace_back();
          continue;
        }
        if (!x.is_number() || !(x.get<double>() > kRatio.lo) || x.get<double>() > kRatio.hi)
          r.fail_at("steps_ratios", "holds " + io::dump_json(x) + ", not a steps ratio or null");
        row.steps_ratios.emplace_back(x.get<double>());
        sum += x.get<double>();
        ++reached;
      }
      const bool agrees = reached == 0 ? !row.steps_ratio
                                       : row.steps_ratio && std::abs(*row.steps_ratio - sum / reached) <= 1e-4;
      if (!agrees)
        r.fail_at("steps_ratio", fmt::format("is {}, but the mean of steps_ratios is {}",
                                             row.steps_ratio ? fmt::format("{:g}", *row.steps_ratio) : "null",
                                             reached == 0 ? "null" : fmt::format("{:.4f}", sum / reached)));
    }
    if (row.converges != Converges::YES && row.reason.empty())
      r.fail_at("reason", "a row that does not converge on every seed needs a reason");
    if (r.has("check")) {
      const io::JsonObject c = r.object("check");
      c.allow_only({"seed", "stop_after", "held_out_loss"});
      EvidenceRow::Check check;
      check.seed = static_cast<int>(c.integer_in("seed", kSeed));
      if (std::find(row.seeds.begin(), row.seeds.end(), check.seed) == row.seeds.end())
        c.fail_at("seed", fmt::format("{} is not one of the row's seeds", check.seed));
      check.stop_after = static_cast<int>(c.integer_in("stop_after", io::range::kSteps));
      const auto& loss = c.raw().contains("held_out_loss") ? c.raw().at("held_out_loss") : nlohmann::json();
      if (!loss.is_null())
        check.held_out_loss = c.number_in("held_out_loss", kLoss);
      else if (!c.raw().contains("held_out_loss"))
        c.fail_at("held_out_loss", "is missing (a loss >= 0, or null where the run had diverged)");
      row.check = check;
    }
    if (!seen.insert({row.algorithm, row.family, row.proxy, row.regime}).second)
      r.fail_at("algorithm", fmt::format("{} appears twice for {} on {} ({})", io::echo(row.algorithm), row.family,
                                         row.proxy, row.regime));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<const EvidenceRow*> find_evidence(const std::vector<EvidenceRow>& rows, const std::string& algorithm)
{
  std::vector<const EvidenceRow*> out;
  for (const auto& r : rows)
    if (r.algorithm == algorithm)
      out.push_back(&r);
  return out;
}

} // namespace ccsim::api
