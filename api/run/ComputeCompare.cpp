// A compute measurement against the per-operator model, and the GPU's constants refitted on it (ComputeCompare.hpp).
#include "api/run/ComputeCompare.hpp"

#include "api/run/ComputeBench.hpp"
#include "api/run/ComputeMeasurement.hpp"
#include "io/JsonInput.hpp"
#include "sim/compute/OperatorCost.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

namespace ccsim::api {

namespace {
double median(std::vector<double> v)
{
  if (v.empty())
    return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

sim::GemmOperands operands_of(const MeasuredGemm& g)
{
  // As bench-compute ran them: 16-bit (fp8: 1-byte) inputs, a 16-bit output, or fp32 read and written (8 bytes).
  return {sim::input_bytes(g.precision), g.fp32_accumulate ? 8.0 : 2.0};
}

double gemm_model_s(const MeasuredGemm& g, const sim::GpuSpec& gpu)
{
  return sim::gemm_cost(g.shape, operands_of(g), g.precision, *gpu.compute, gpu.memory_bytes_per_s).seconds;
}

/// The model's attention op of a causal (batch, heads, seq, head_dim) in bf16, forward and backward: the FLOPs and
/// bytes the per-operator model itself counts (sim/compute/TransformerOps.cpp), from a one-layer GPT of that shape.
std::pair<sim::OpSpec, sim::OpSpec> attention_ops(const MeasuredAttention& a)
{
  const auto arch = gpt_bench_layer(a.heads * a.head_dim, a.heads, 4 * a.heads * a.head_dim, a.seq, /*flash=*/true);
  sim::ComputeSplit split;
  split.micro_batch = static_cast<std::uint64_t>(a.batch);
  split.seq_len     = a.seq;
  std::pair<sim::OpSpec, sim::OpSpec> out;
  for (const auto& op : sim::layer_ops(arch, split)) {
    if (op.name == "attention")
      out.first = op;
    if (op.name == "attention.backward")
      out.second = op;
  }
  return out;
}

std::vector<sim::OpSpec> layer_ops_of(const MeasuredLayer& l)
{
  sim::ComputeSplit split;
  split.micro_batch = static_cast<std::uint64_t>(l.micro_batch);
  split.seq_len     = l.seq;
  return sim::layer_ops(gpt_bench_layer(l.hidden, l.heads, l.ffn, l.seq, /*flash=*/true), split);
}

/// The GPU's flash forward and backward efficiencies from the rows of `backend`: each row's FLOPs over its time less
/// the launch, as a share of the bf16 peak (the rows are compute-bound), the median over the rows. No rows: unchanged.
void set_attention_efficiency(sim::GpuCompute& c, const std::vector<MeasuredAttention>& rows, const std::string& backend)
{
  const sim::TensorRate* bf16 = c.rate(sim::Precision::BF16);
  std::vector<double> fwd, bwd;
  for (const auto& a : rows) {
    if (a.backend != backend || !bf16)
      continue;
    const auto [f, b] = attention_ops(a);
    fwd.push_back(f.flops / (bf16->peak_flops * std::max(a.forward_s - c.launch_s, 1e-9)));
    bwd.push_back(b.flops / (bf16->peak_flops * std::max(a.backward_s - c.launch_s, 1e-9)));
  }
  if (fwd.empty())
    return;
  c.flash_forward_efficiency  = std::min(1.0, median(fwd));
  c.flash_backward_efficiency = std::min(1.0, median(bwd));
}

/// Minimises f over [lo, hi] by golden-section search (f unimodal enough there); 40 steps narrow the bracket 10^8x.
double golden_min(const std::function<double(double)>& f, double lo, double hi)
{
  const double r = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi, c = b - r * (b - a), d = a + r * (b - a);
  double fc = f(c), fd = f(d);
  for (int i = 0; i < 40; ++i) {
    if (fc < fd) {
      b = d, d = c, fd = fc;
      c  = b - r * (b - a);
      fc = f(c);
    } else {
      a = c, c = d, fc = fd;
      d  = a + r * (b - a);
      fd = f(d);
    }
  }
  return (a + b) / 2;
}
} // namespace

nlohmann::json compute_json(const sim::GpuCompute& c)
{
  nlohmann::json efficiency = nlohmann::json::object();
  for (const auto& [p, rate] : c.rates)
    efficiency[sim::to_string(p)] = rate.gemm_efficiency;
  return {{"gemm_efficiency", efficiency},
          {"tile_overhead_us", c.tile_overhead_s * 1e6},
          {"l2_gbps", c.l2_bytes_per_s / 1e9},
          {"launch_us", c.launch_s * 1e6},
          {"flash_attention", {{"forward", c.flash_forward_efficiency}, {"backward", c.flash_backward_efficiency}}},
          {"memory_efficiency", c.memory_efficiency}};
}

nlohmann::json run_bench_compute(const std::string& compare, const std::string& topology_path, bool fit, bool quick,
                                 int trials)
{
  if (compare.empty())
    return measure_compute(quick, trials);
  const ComputeMeasurement measured = read_compute_measurement(io::read_json_file(compare), compare);
  const sim::Topology topo          = sim::load_topology(topology_path);
  std::optional<sim::GpuSpec> fitted;
  if (fit)
    fitted = with_compute(topo.gpu, fit_compute(measured, topo.gpu));
  nlohmann::json doc = compare_compute(measured, topo.gpu, fitted ? &*fitted : nullptr);
  if (fitted)
    doc["fitted_compute"] = compute_json(*fitted->compute);
  return doc;
}

sim::GpuSpec with_compute(const sim::GpuSpec& gpu, const sim::GpuCompute& compute)
{
  sim::GpuSpec g = gpu;
  g.compute      = compute;
  return g;
}

/// Coordinate-descent sweeps of the GEMM fit; more change its constants by < 0.1 % on the H200's 1,490 GEMMs.
constexpr int kSweeps = 12;

sim::GpuCompute fit_compute(const ComputeMeasurement& m, const sim::GpuSpec& gpu)
{
  if (!gpu.compute)
    throw io::InputError(m.file, "", "the topology's GPU has no gpu.compute block to refit");
  if (m.gemms.empty() || m.elementwise.empty())
    throw io::InputError(m.file, "", "a fit needs measured gemms and elementwise kernels");
  sim::GpuCompute c = *gpu.compute;
  c.launch_s        = m.launch_s;
  // The element-wise kernels but the copy (a copy engine's rate, not a kernel's): their median share of the datasheet.
  std::vector<double> shares;
  for (const auto& e : m.elementwise)
    if (e.kernel != "copy")
      shares.push_back(e.bytes / std::max(e.seconds - c.launch_s, 1e-9) / gpu.memory_bytes_per_s);
  c.memory_efficiency = std::min(1.0, median(shares));
  // Fused attention from cuDNN's rows where measured (what Megatron-Core runs on Hopper through Transformer Engine),
  // else from PyTorch's FlashAttention rows.
  const bool cudnn = std::any_of(m.attention.begin(), m.attention.end(), [](const auto& a) { return a.backend == "cudnn"; });
  set_attention_efficiency(c, m.attention, cudnn ? "cudnn" : "flash");
  // GEMMs: every format's gemm_efficiency, the tile overhead and the L2 feed, by least squares of log(model/measured).
  const auto loss = [&](const sim::GpuCompute& trial) {
    const sim::GpuSpec g = with_compute(gpu, trial);
    double sum           = 0;
    for (const auto& r : m.gemms) {
      const double e = std::log(gemm_model_s(r, g) / r.seconds);
      sum += e * e;
    }
    return sum;
  };
  // From the same start whatever the topology held, so that a refit of a fitted preset gives the preset back.
  std::vector<sim::Precision> formats;
  for (const auto& r : m.gemms)
    if (c.rate(r.precision) && std::find(formats.begin(), formats.end(), r.precision) == formats.end()) {
      formats.push_back(r.precision);
      c.rates[r.precision].gemm_efficiency = 0.75;
    }
  c.tile_overhead_s = 2e-6;
  c.l2_bytes_per_s  = 1e13;
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    for (const sim::Precision p : formats)
      c.rates[p].gemm_efficiency = golden_min(
          [&](double e) {
            sim::GpuCompute t = c;
            t.rates[p].gemm_efficiency = e;
            return loss(t);
          },
          0.2, 1.0);
    c.tile_overhead_s = std::exp(golden_min(
        [&](double x) {
          sim::GpuCompute t = c;
          t.tile_overhead_s = std::exp(x);
          return loss(t);
        },
        std::log(1e-8), std::log(1e-4)));
    c.l2_bytes_per_s = std::exp(golden_min(
        [&](double x) {
          sim::GpuCompute t = c;
          t.l2_bytes_per_s = std::exp(x);
          return loss(t);
        },
        std::log(1e12), std::log(1e14)));
  }
  return c;
}

nlohmann::json compare_compute(const ComputeMeasurement& m, const sim::GpuSpec& gpu, const sim::GpuSpec* fitted)
{
  if (!gpu.compute)
    throw io::InputError(m.file, "", "the topology's GPU has no gpu.compute block to compare with");
  // The refit was made from this measurement, so a layer is priced with the attention kernel that layer ran; the
  // preset keeps its own attention rates.
  struct Model {
    std::string name;
    const sim::GpuSpec* gpu;
    bool from_measurement;
  };
  const std::vector<Model> models = {{"preset", &gpu, false}, {"fitted", fitted, true}};
  nlohmann::json out = {{"device", m.device}, {"source", m.source}, {"gemms", nlohmann::json::array()},
                        {"summary", nlohmann::json::array()}, {"elementwise", nlohmann::json::array()},
                        {"attention", nlohmann::json::array()}, {"layers", nlohmann::json::array()}};
  // Per row: measured / model for each model given; summaries by format and by size (FLOPs in decades).
  // Keyed by format and decade of FLOPs (-1: every size), so that the summary lists sizes in order.
  std::map<std::pair<std::string, int>, std::map<std::string, std::vector<double>>> groups;
  for (const auto& r : m.gemms) {
    nlohmann::json row = {{"layer", r.layer}, {"op", r.op},
                          {"m", r.shape.m}, {"n", r.shape.n}, {"k", r.shape.k}, {"batch", r.shape.batch},
                          {"dtype", sim::to_string(r.precision)}, {"measured_us", r.seconds * 1e6},
                          {"tflops", r.shape.flops() / r.seconds / 1e12}};
    const int decade = static_cast<int>(std::floor(std::log10(r.shape.flops())));
    for (const auto& [name, g, refit] : models) {
      if (!g || !g->compute || !g->compute->rate(r.precision))
        continue;
      const double ratio = r.seconds / gemm_model_s(r, *g);
      row[name + "_ratio"] = ratio;
      groups[{sim::to_string(r.precision), decade}][name].push_back(ratio);
      groups[{sim::to_string(r.precision), -1}][name].push_back(ratio);
    }
    out["gemms"].push_back(std::move(row));
  }
  for (const auto& [key, by_model] : groups) {
    nlohmann::json s = {{"dtype", key.first}, {"flops", key.second < 0 ? "all" : "1e" + std::to_string(key.second)},
                        {"rows", by_model.begin()->second.size()}};
    for (const auto& [name, ratios] : by_model) {
      std::vector<double> errors;
      for (double x : ratios)
        errors.push_back(std::abs(1 / x - 1)); // |model / measured - 1|
      s[name + "_median_ratio"]     = median(ratios);
      s[name + "_median_abs_error"] = median(errors);
    }
    out["summary"].push_back(std::move(s));
  }
  for (const auto& e : m.elementwise) {
    nlohmann::json row = {{"kernel", e.kernel}, {"measured_us", e.seconds * 1e6},
                          {"GBps", e.bytes / e.seconds / 1e9}};
    for (const auto& [name, g, refit] : models)
      if (g && g->compute)
        row[name + "_ratio"] = e.seconds / sim::elementwise_cost(e.bytes, *g->compute, g->memory_bytes_per_s).seconds;
    out["elementwise"].push_back(std::move(row));
  }
  for (const auto& a : m.attention) {
    const auto [f, b] = attention_ops(a);
    nlohmann::json row = {{"backend", a.backend}, {"batch", a.batch}, {"heads", a.heads}, {"seq", a.seq},
                          {"head_dim", a.head_dim},
                          {"forward_us", a.forward_s * 1e6}, {"backward_us", a.backward_s * 1e6}};
    for (const auto& [name, g, refit] : models) {
      if (!g || !g->compute)
        continue;
      const auto& c = *g->compute;
      row[name + "_forward_ratio"] =
          a.forward_s / sim::flash_attention_cost(f.flops, f.bytes, false, sim::Precision::BF16, c, g->memory_bytes_per_s).seconds;
      row[name + "_backward_ratio"] =
          a.backward_s / sim::flash_attention_cost(b.flops, b.bytes, true, sim::Precision::BF16, c, g->memory_bytes_per_s).seconds;
    }
    out["attention"].push_back(std::move(row));
  }
  for (const auto& l : m.layers) {
    nlohmann::json row = {{"hidden", l.hidden}, {"heads", l.heads}, {"ffn", l.ffn}, {"seq", l.seq},
                          {"micro_batch", l.micro_batch}, {"attention_backend", l.attention_backend},
                          {"measured_forward_backward_ms", l.forward_backward_s * 1e3}};
    for (const auto& [name, g, refit] : models) {
      if (!g || !g->compute)
        continue;
      sim::GpuSpec priced = *g;
      if (refit)
        set_attention_efficiency(*priced.compute, m.attention, l.attention_backend);
      const sim::BlockCost cost = sim::price_ops(layer_ops_of(l), priced);
      const double model        = cost.forward_s + cost.backward_s;
      row[name + "_forward_backward_ms"] = model * 1e3;
      row[name + "_error"]               = model / l.forward_backward_s - 1;
    }
    out["layers"].push_back(std::move(row));
  }
  return out;
}

} // namespace ccsim::api
