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

namespace {
/// The seeds' finite gaps as "+m % [+lo, +hi]" (percent), and how many seeds diverged; empty text when all did.
std::pair<std::string, std::size_t> finite_gap_text(const EvidenceRow& row)
{
  std::vector<double> finite;
  for (double g : row.gaps())
    if (std::isfinite(g))
      finite.push_back(g);
  const std::size_t diverged = row.seeds.size() - finite.size();
  if (finite.empty())
    return {"", diverged};
  const double mean = std::accumulate(finite.begin(), finite.end(), 0.0) / static_cast<double>(finite.size());
  return {fmt::format("{:+.1f} % [{:+.1f}, {:+.1f}]", 100 * mean, 100 * *std::min_element(finite.begin(), finite.end()),
                      100 * *std::max_element(finite.begin(), finite.end())),
          diverged};
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

namespace {
/// yes: every seed within the threshold; no: none (a diverged run counts as outside); uncertain: the seeds straddle it.
Converges verdict(const std::vector<double>& gaps, double threshold)
{
  const auto within = std::count_if(gaps.begin(), gaps.end(), [&](double g) { return g <= threshold; });
  if (within == static_cast<long>(gaps.size()))
    return Converges::YES;
  return within == 0 ? Converges::NO : Converges::UNCERTAIN;
}
} // namespace

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
                  "baseline_final_loss", "converges", "steps_ratio", "reason", "command"});
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
    // The verdict is the losses' own: a file whose `converges` they contradict is wrong, not advice.
    row.converges        = verdict(row.gaps(), row.threshold);
    const auto converges = r.choice("converges", {"yes", "no", "uncertain"});
    if (converges != to_string(row.converges))
      r.fail_at("converges", fmt::format("is {}, but its losses give {} ({} against a threshold of {:g} %)", converges,
                                         to_string(row.converges), row.summary(), 100 * row.threshold));
    if (r.has("steps_ratio") && !r.raw().at("steps_ratio").is_null())
      row.steps_ratio = r.number_in("steps_ratio", kRatio);
    if (row.converges == Converges::YES && !row.steps_ratio)
      r.fail_at("steps_ratio", "is null, but every seed reaches the target");
    if (row.converges != Converges::YES && row.reason.empty())
      r.fail_at("reason", "a row that does not converge on every seed needs a reason");
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
