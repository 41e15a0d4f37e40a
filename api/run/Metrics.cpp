// The metric table and metrics by name; see Metrics.hpp.
#include "api/run/Metrics.hpp"

#include <algorithm>
#include <stdexcept>

namespace ccsim::api {

namespace {
using K = MetricKind;
using I = IntervalRule;

// One row per metric, in enum order (checked below). The communication metrics are the ones whose error the
// calibration's communication rows bound: collectives' time in flight, exposed or synchronising
// (api/run/Intervals.hpp).
constexpr std::array<MetricInfo, kMetricCount> kTable = {{
    {Metric::SAMPLES_PER_S, "samples_per_s", "samples/s", K::THROUGHPUT, I::ALWAYS, nullptr,
     [](const SimulationReport& r) { return r.samples_per_s; }, [](const PhaseResult& p) { return p.samples_per_s; }},
    {Metric::STEP_TIME_S, "step_time_s", "step (s)", K::THROUGHPUT, I::ALWAYS, nullptr,
     [](const SimulationReport& r) { return r.step_time_s; }, [](const PhaseResult& p) { return p.step_time_s; }},
    {Metric::TFLOPS_PER_GPU, "tflops_per_gpu", "TFLOP/s per GPU", K::THROUGHPUT, I::ALWAYS, nullptr,
     [](const SimulationReport& r) { return r.tflops_per_gpu; }, nullptr},
    {Metric::COMPUTE_S, "compute_s", "compute (s)", K::THROUGHPUT, I::NONE, &TimeBreakdown::compute_s},
    {Metric::COMM_S, "comm_s", "comm (s)", K::COMMUNICATION, I::NONE, &TimeBreakdown::comm_s},
    {Metric::EXPOSED_COMM_S, "exposed_comm_s", "exposed comm (s)", K::COMMUNICATION, I::NONE,
     &TimeBreakdown::exposed_comm_s},
    {Metric::COMPRESSION_S, "compression_s", "compression (s)", K::THROUGHPUT, I::NONE,
     &TimeBreakdown::compression_s},
    {Metric::OPTIMIZER_S, "optimizer_s", "optimizer (s)", K::THROUGHPUT, I::NONE, &TimeBreakdown::optimizer_s},
    {Metric::ALLREDUCE_MS, "allreduce_ms", "allreduce (ms)", K::COMMUNICATION, I::WHEN_POSITIVE,
     &TimeBreakdown::allreduce_ms},
    {Metric::INTER_NODE_BYTES, "inter_node_bytes", "inter-node (B/GPU)", K::THROUGHPUT, I::NONE, nullptr,
     [](const SimulationReport& r) { return r.bytes_per_gpu.inter_node; },
     [](const PhaseResult& p) { return p.bytes_per_gpu.inter_node; }},
    {Metric::INTRA_NODE_BYTES, "intra_node_bytes", "intra-node (B/GPU)", K::THROUGHPUT, I::NONE, nullptr,
     [](const SimulationReport& r) { return r.bytes_per_gpu.intra_node; },
     [](const PhaseResult& p) { return p.bytes_per_gpu.intra_node; }},
    {Metric::STRAGGLER_WAIT_S, "straggler_wait_s", "straggler wait (s)", K::THROUGHPUT, I::NONE, nullptr,
     [](const SimulationReport& r) { return r.straggler_wait_s; }, nullptr},
    // Tokens: samples x the sequence length simulated (config.seq_len, --param seq_len included). A phase keeps no
    // sequence length, so these are the run's only. Days to N tokens are N / 1e12 x days_per_1t_tokens.
    {Metric::TOKENS_PER_S, "tokens_per_s", "tokens/s", K::THROUGHPUT, I::NONE, nullptr,
     [](const SimulationReport& r) { return r.samples_per_s * r.config.seq_len; }, nullptr},
    {Metric::TOKENS_PER_S_PER_GPU, "tokens_per_s_per_gpu", "tokens/s per GPU", K::THROUGHPUT, I::NONE, nullptr,
     [](const SimulationReport& r) { return r.samples_per_s * r.config.seq_len / std::max(1, r.config.gpus); }, nullptr},
    {Metric::DAYS_PER_TRILLION_TOKENS, "days_per_1t_tokens", "days per 1T tokens", K::THROUGHPUT, I::NONE, nullptr,
     [](const SimulationReport& r) {
       const double tokens_per_s = r.samples_per_s * r.config.seq_len;
       return tokens_per_s > 0 ? 1e12 / tokens_per_s / 86400 : 0.0;
     },
     nullptr},
}};

constexpr bool in_enum_order()
{
  for (std::size_t i = 0; i < kTable.size(); ++i) {
    const auto& m = kTable[i];
    if (static_cast<std::size_t>(m.metric) != i || (m.breakdown == nullptr) == (m.of_run == nullptr))
      return false;
  }
  return true;
}
static_assert(in_enum_order(), "one row per Metric, in enum order, each with a breakdown field or an of_run");

/// What phases have beyond the table's metrics: their share of the steps and the pipeline's per-micro-batch sends.
struct PhaseOnly {
  const char* name;
  MetricKind kind;
  double PhaseResult::*field;
};
constexpr std::array<PhaseOnly, 3> kPhaseOnly = {{
    {"fraction", K::THROUGHPUT, &PhaseResult::fraction},
    {"pipeline_forward_comm_ms", K::COMMUNICATION, &PhaseResult::pipeline_forward_comm_ms},
    {"pipeline_backward_comm_ms", K::COMMUNICATION, &PhaseResult::pipeline_backward_comm_ms},
}};
constexpr const char* kMemory = "memory_gb_per_gpu"; // a column of its own in results rows (after the speedups)

/// "phase.<name>.<key>" split at its second dot; empty when `metric` is not of that form.
std::optional<std::pair<std::string, std::string>> phase_parts(const std::string& metric)
{
  if (metric.rfind("phase.", 0) != 0)
    return std::nullopt;
  const auto dot = metric.find('.', 6);
  if (dot == std::string::npos)
    return std::nullopt;
  return std::pair{metric.substr(6, dot - 6), metric.substr(dot + 1)};
}

double phase_value(const SimulationReport& report, const std::string& metric)
{
  const auto parts = phase_parts(metric);
  if (!parts)
    throw std::out_of_range(metric);
  const auto& [name, key] = *parts;
  const PhaseResult* phase = nullptr;
  for (const auto& p : report.phases)
    if (p.name == name)
      phase = &p; // the last of a name, as a lookup over the JSON array did
  if (phase == nullptr)
    throw std::out_of_range("no phase '" + name + "'");
  for (const auto& f : kPhaseOnly)
    if (key == f.name)
      return phase->*f.field;
  if (const auto m = metric_named(key))
    if (const auto v = phase_metric_value(*phase, *m))
      return *v;
  throw std::out_of_range(metric);
}
} // namespace

const std::array<MetricInfo, kMetricCount>& metric_table() { return kTable; }

const MetricInfo& metric_info(Metric metric) { return kTable[static_cast<std::size_t>(metric)]; }

const char* metric_name(Metric metric) { return metric_info(metric).name; }

std::optional<Metric> metric_named(std::string_view name)
{
  for (const auto& m : kTable)
    if (name == m.name)
      return m.metric;
  return std::nullopt;
}

const std::vector<std::string>& known_metrics()
{
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& m : kTable)
      out.emplace_back(m.name);
    return out;
  }();
  return names;
}

double metric_value(const SimulationReport& report, Metric metric)
{
  const auto& m = metric_info(metric);
  return m.breakdown != nullptr ? report.breakdown.*m.breakdown : m.of_run(report);
}

std::optional<double> phase_metric_value(const PhaseResult& phase, Metric metric)
{
  const auto& m = metric_info(metric);
  if (m.breakdown != nullptr)
    return phase.breakdown.*m.breakdown;
  if (m.of_phase != nullptr)
    return m.of_phase(phase);
  return std::nullopt;
}

double metric_value(const SimulationReport& report, const std::string& metric)
{
  if (metric.rfind("phase.", 0) == 0)
    return phase_value(report, metric);
  if (metric == kMemory)
    return report.memory_gb_per_gpu;
  if (const auto m = metric_named(metric))
    return metric_value(report, *m);
  throw std::out_of_range(metric);
}

std::optional<MetricKind> metric_kind(const std::string& metric)
{
  const auto parts = phase_parts(metric);
  const std::string key = parts ? parts->second : metric;
  if (parts)
    for (const auto& f : kPhaseOnly)
      if (key == f.name)
        return f.kind;
  if (!parts && key == kMemory)
    return MetricKind::THROUGHPUT;
  const auto m = metric_named(key);
  if (!m)
    return std::nullopt;
  const auto& info = metric_info(*m);
  if (parts && info.breakdown == nullptr && info.of_phase == nullptr)
    return std::nullopt; // a metric of the whole run only (tflops_per_gpu, straggler_wait_s)
  return info.kind;
}

} // namespace ccsim::api
