// The memory a refused run needs and the changes that make it fit; see MemoryFixes.hpp.
#include "api/advise/MemoryFixes.hpp"

#include "algorithms/Registry.hpp"
#include "io/InputError.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <utility>

namespace ccsim::api {

namespace {
/// One change to try: its text and what it does to a request.
struct Change {
  std::string text;
  std::function<void(SimulateRequest&)> apply;
};

/// The changes tried, simplest first. A higher ZeRO stage (sharding the gradients, then the weights, over dp) comes
/// before the split changes, since it keeps the algorithm's split.
std::vector<Change> changes_to_try(const SimulateRequest& request, const MemoryShortfall& s)
{
  std::vector<Change> splits;
  auto split = [&](int tp, int pp) {
    std::string text;
    if (tp != s.tp)
      text += fmt::format("--tp {}", tp);
    if (pp != s.pp)
      text += fmt::format("{}--pp {}", text.empty() ? "" : " ", pp);
    splits.push_back({text, [tp, pp](SimulateRequest& r) { r.tp = tp, r.pp = pp; }});
  };
  // Every tp x pp of powers of two over the run's (tp within a node, the model copy within the GPUs), by GPUs per
  // copy, then the smaller tp (it keeps the collectives within a node cheaper).
  std::vector<std::pair<int, int>> shapes;
  for (int tp = s.tp; tp <= std::max(s.tp, s.gpus_per_node); tp *= 2)
    for (int pp = s.pp; tp * pp <= s.gpus; pp *= 2)
      if (tp != s.tp || pp != s.pp)
        shapes.emplace_back(tp, pp);
  std::stable_sort(shapes.begin(), shapes.end(),
                   [](const auto& a, const auto& b) { return a.first * a.second < b.first * b.second; });
  for (const auto& [tp, pp] : shapes)
    split(tp, pp);

  std::vector<Change> out;
  // Recomputation first: it keeps the split. Unset, `simulate` already recomputes where the run needs it, so it is a
  // change only where the request asked for less (none or selective).
  const bool can_recompute = request.recompute && *request.recompute != "full";
  const Change recompute{"--recompute full", [](SimulateRequest& r) { r.recompute = "full"; }};
  const Change micro{"--micro-batch 1", [](SimulateRequest& r) { r.micro_batch = 1; }};
  if (can_recompute)
    out.push_back(recompute);
  if (s.micro_batch > 1)
    out.push_back(micro);
  for (const int stage : s.higher_zero_stages)
    out.push_back({fmt::format("--zero {}", stage), [stage](SimulateRequest& r) { r.zero = stage; }});
  auto with = [](const Change& a, const Change& b) {
    return Change{a.text + " " + b.text, [fa = a.apply, fb = b.apply](SimulateRequest& r) { fa(r), fb(r); }};
  };
  for (const auto& c : splits)
    out.push_back(c);
  if (s.micro_batch > 1)
    for (const auto& c : splits)
      out.push_back(with(c, micro));
  if (can_recompute)
    for (std::size_t i = 0, n = out.size(); i < n; ++i)
      if (out[i].text.find("--recompute") == std::string::npos)
        out.push_back(with(out[i], recompute));
  return out;
}
} // namespace

std::optional<MemoryShortfall> memory_shortfall(const SimulateRequest& request, InputCache& cache)
{
  try {
    resolve_run(request, &cache);
    return std::nullopt; // it runs
  } catch (const io::InputError&) {
  }
  SimulateRequest oom = request;
  oom.allow_oom       = true;
  try {
    const ResolvedRun run = resolve_run(oom, &cache);
    const auto& fit       = run.memory_fit;
    if (fit.fits() && !(fit.verdict == MemoryVerdict::FITS_WITH_RECOMPUTATION && request.recompute == "none"))
      return std::nullopt; // refused for something else than memory
    MemoryShortfall s;
    // What it was refused for: recomputation asked away (none) is judged without it, else with it.
    const bool plain    = request.recompute == std::optional<std::string>("none");
    s.memory_gb_per_gpu = plain ? fit.gb_without_recomputation : fit.gb_with_recomputation;
    s.recompute         = !plain;
    s.usable_gb         = fit.capacity_gb.value_or(0) - fit.headroom_gb;
    s.tp = run.shape.tp, s.pp = run.shape.pp;
    s.micro_batch   = run.shape.micro_batch;
    s.gpus_per_node = run.topo.gpus_per_node;
    s.gpus          = run.shape.gpus;
    s.zero_stage    = run.shape.zero_stage;
    for (const int z : algorithms::algorithm_named(run.algo->name()).zero_stages)
      if (z > s.zero_stage)
        s.higher_zero_stages.push_back(z);
    return s;
  } catch (const io::InputError&) {
    return std::nullopt; // not a memory refusal: another check rejects it too
  }
}

std::string describe(const MemoryShortfall& s)
{
  return fmt::format("needs {:.1f} GB per GPU at tp {} pp {}, micro-batch {}, {} activation recomputation; {:.1f} GB "
                     "are usable",
                     s.memory_gb_per_gpu, s.tp, s.pp, s.micro_batch, s.recompute ? "even with" : "without",
                     s.usable_gb);
}

std::vector<MemoryFix> memory_fixes(const SimulateRequest& request, const MemoryShortfall& shortfall,
                                    InputCache& cache, std::size_t most)
{
  std::vector<MemoryFix> fixes;
  struct Found {
    int tp, pp;
    std::uint64_t micro_batch;
    bool recompute;
    int zero_stage;
  };
  std::vector<Found> found;
  // A change that asks at least as much as one already found (tp 4 after tp 2, tp 2 with micro-batch 1 after tp 2)
  // is not offered: the simpler one is enough.
  auto asks_more = [&](const ResolvedRun& run) {
    for (const auto& f : found)
      if (run.shape.tp >= f.tp && run.shape.pp >= f.pp && run.shape.micro_batch <= f.micro_batch &&
          run.recompute >= f.recompute && run.shape.zero_stage >= f.zero_stage)
        return true;
    return false;
  };
  for (const auto& change : changes_to_try(request, shortfall)) {
    if (fixes.size() >= most)
      break;
    SimulateRequest tried = request;
    change.apply(tried);
    try {
      const ResolvedRun run = resolve_run(tried, &cache);
      if (asks_more(run))
        continue;
      found.push_back({run.shape.tp, run.shape.pp, run.shape.micro_batch, run.recompute, run.shape.zero_stage});
      fixes.push_back({change.text, run.memory.total_bytes(run.recompute) / 1e9, run.recompute});
    } catch (const io::InputError&) {
      // this change does not fit either, or another check refuses it (tp past a node, heads that do not divide)
    }
  }
  return fixes;
}

} // namespace ccsim::api
