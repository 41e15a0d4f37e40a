// Metrics by name; see Metrics.hpp.
#include "api/run/Metrics.hpp"

#include <optional>
#include <stdexcept>

namespace ccsim::api {

namespace {
std::optional<double> breakdown_value(const TimeBreakdown& b, const std::string& key)
{
  if (key == "compute_s")
    return b.compute_s;
  if (key == "comm_s")
    return b.comm_s;
  if (key == "exposed_comm_s")
    return b.exposed_comm_s;
  if (key == "compression_s")
    return b.compression_s;
  if (key == "optimizer_s")
    return b.optimizer_s;
  if (key == "allreduce_ms")
    return b.allreduce_ms;
  return std::nullopt;
}

std::optional<double> bytes_value(const BytesPerGpu& b, const std::string& key)
{
  if (key == "inter_node_bytes")
    return b.inter_node;
  if (key == "intra_node_bytes")
    return b.intra_node;
  return std::nullopt;
}

double phase_value(const SimulationReport& report, const std::string& metric)
{
  const auto dot = metric.find('.', 6);
  if (dot == std::string::npos)
    throw std::out_of_range(metric);
  const std::string name = metric.substr(6, dot - 6), key = metric.substr(dot + 1);
  const PhaseResult* phase = nullptr;
  for (const auto& p : report.phases)
    if (p.name == name)
      phase = &p; // the last of a name, as a lookup over the JSON array did
  if (phase == nullptr)
    throw std::out_of_range("no phase '" + name + "'");
  if (key == "fraction")
    return phase->fraction;
  if (key == "step_time_s")
    return phase->step_time_s;
  if (key == "samples_per_s")
    return phase->samples_per_s;
  if (key == "pipeline_forward_comm_ms")
    return phase->pipeline_forward_comm_ms;
  if (key == "pipeline_backward_comm_ms")
    return phase->pipeline_backward_comm_ms;
  if (const auto v = breakdown_value(phase->breakdown, key))
    return *v;
  if (const auto v = bytes_value(phase->bytes_per_gpu, key))
    return *v;
  throw std::out_of_range(metric);
}
} // namespace

const std::vector<std::string>& known_metrics()
{
  static const std::vector<std::string> m = {"samples_per_s", "step_time_s",   "tflops_per_gpu", "compute_s",
                                             "comm_s",        "exposed_comm_s", "compression_s", "optimizer_s",
                                             "allreduce_ms",  "inter_node_bytes", "intra_node_bytes", "straggler_wait_s"};
  return m;
}

double metric_value(const SimulationReport& report, const std::string& metric)
{
  if (metric.rfind("phase.", 0) == 0)
    return phase_value(report, metric);
  if (metric == "samples_per_s")
    return report.samples_per_s;
  if (metric == "step_time_s")
    return report.step_time_s;
  if (metric == "tflops_per_gpu")
    return report.tflops_per_gpu;
  if (metric == "memory_gb_per_gpu")
    return report.memory_gb_per_gpu;
  if (metric == "straggler_wait_s")
    return report.straggler_wait_s;
  if (const auto v = breakdown_value(report.breakdown, metric))
    return *v;
  if (const auto v = bytes_value(report.bytes_per_gpu, metric))
    return *v;
  throw std::out_of_range(metric);
}

} // namespace ccsim::api
