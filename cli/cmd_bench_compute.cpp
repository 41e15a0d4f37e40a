// `ccsim bench-compute [--backend cuda] [--quick] [--trials N]`: the GEMMs and element-wise kernels of transformer
// layers timed on the GPU (api/run/ComputeBench.hpp); --format json is the measurement document.
// `ccsim bench-compute --compare FILE --topology T [--fit]`: such a document against the model (api/run/ComputeCompare.hpp).
#include "api/options/BenchComputeCommand.hpp"
#include "api/output/Table.hpp"
#include "api/run/ComputeBench.hpp"
#include "api/run/ComputeCompare.hpp"
#include "cli/Command.hpp"
#include "cli/Options.hpp"

#include <fmt/format.h>

#include <iostream>

namespace ccsim::cli {

namespace {
std::string cell(const nlohmann::json& row, const std::string& key, int digits = 3)
{
  return row.contains(key) ? format_number(row[key].get<double>(), digits) : "-";
}

/// --compare: the measurement beside the model (and the refit), summarised by format and size; the layers.
int print_comparison(const BenchComputeCommand& req, Format format)
{
  const nlohmann::json doc = run_bench_compute(req.compare, req.topology_path, req.fit, req.quick, req.trials);
  const bool fitted        = doc.contains("fitted_compute");
  if (format != Format::TABLE) {
    print_json_or_csv(format, doc, doc["summary"].get<std::vector<nlohmann::json>>());
    return 0;
  }
  std::cout << "measured: " << doc["source"].get<std::string>() << "\n";
  std::cout << "model: " << req.topology << "'s gpu.compute" << (fitted ? ", and refitted on the measurement" : "")
            << " (ratio = measured / model time; error = |model / measured - 1|)\n";
  Table s({"dtype", "GEMM FLOPs", "rows", "preset ratio", "preset error", "fitted ratio", "fitted error"});
  for (const auto& r : doc["summary"])
    s.add_row({r["dtype"].get<std::string>(), r["flops"].get<std::string>(), std::to_string(r["rows"].get<int>()),
               cell(r, "preset_median_ratio"), cell(r, "preset_median_abs_error"), cell(r, "fitted_median_ratio"),
               cell(r, "fitted_median_abs_error")});
  s.print(std::cout, table_width());
  Table e({"element-wise", "GB/s", "preset ratio", "fitted ratio"});
  for (const auto& r : doc["elementwise"])
    e.add_row({r["kernel"].get<std::string>(), cell(r, "GBps", 4), cell(r, "preset_ratio"), cell(r, "fitted_ratio")});
  e.print(std::cout, table_width());
  if (!doc["attention"].empty()) {
    Table a({"attention (kernel: b, heads, s, d)", "fwd us", "preset fwd", "fitted fwd", "bwd us", "preset bwd", "fitted bwd"});
    for (const auto& r : doc["attention"])
      a.add_row({fmt::format("{}: {}, {}, {}, {}", r["backend"].get<std::string>(), r["batch"].get<int>(), r["heads"].get<int>(), r["seq"].get<int>(),
                             r["head_dim"].get<int>()),
                 cell(r, "forward_us", 4), cell(r, "preset_forward_ratio"), cell(r, "fitted_forward_ratio"),
                 cell(r, "backward_us", 4), cell(r, "preset_backward_ratio"), cell(r, "fitted_backward_ratio")});
    a.print(std::cout, table_width());
  }
  if (!doc["layers"].empty()) {
    Table l({"layer (h, s, b)", "measured fwd+bwd ms", "preset ms", "preset error", "fitted ms", "fitted error"});
    for (const auto& r : doc["layers"])
      l.add_row({fmt::format("{}, {}, {}", r["hidden"].get<int>(), r["seq"].get<int>(), r["micro_batch"].get<int>()),
                 cell(r, "measured_forward_backward_ms", 4), cell(r, "preset_forward_backward_ms", 4),
                 cell(r, "preset_error"), cell(r, "fitted_forward_backward_ms", 4), cell(r, "fitted_error")});
    l.print(std::cout, table_width());
  }
  return 0;
}
} // namespace

int cmd_bench_compute(const std::vector<std::string>& args)
{
  const auto given = parse_command(bench_compute_options().options(), args);
  if (!given)
    return 0;
  const Format format            = output_format(*given);
  const BenchComputeCommand req  = build_bench_compute(*given);
  if (!req.compare.empty())
    return print_comparison(req, format);
  const nlohmann::json doc       = run_bench_compute(req.compare, req.topology_path, req.fit, req.quick, req.trials);
  if (format != Format::TABLE) {
    print_json_or_csv(format, doc, doc["gemms"].get<std::vector<nlohmann::json>>());
    return 0;
  }
  std::cout << doc["source"].get<std::string>() << "\n";
  std::cout << fmt::format("launch gap: {:.2f} us\n", doc["launch_us"].get<double>());
  Table e({"kernel", "MiB moved", "us", "GB/s"});
  for (const auto& r : doc["elementwise"])
    e.add_row({r["kernel"].get<std::string>(), format_number(r["bytes"].get<double>() / (1 << 20)),
               format_number(r["us"].get<double>()), format_number(r["GBps"].get<double>())});
  e.print(std::cout, table_width());
  Table g({"layer", "op", "m", "n", "k", "batch", "layout", "dtype", "us", "TFLOP/s"});
  for (const auto& r : doc["gemms"]) {
    const bool ok = r.contains("us");
    g.add_row({r["layer"].get<std::string>(), r["op"].get<std::string>(), std::to_string(r["m"].get<long long>()),
               std::to_string(r["n"].get<long long>()), std::to_string(r["k"].get<long long>()),
               std::to_string(r["batch"].get<long long>()), r["layout"].get<std::string>(),
               r["dtype"].get<std::string>(), ok ? format_number(r["us"].get<double>()) : "error",
               ok ? format_number(r["tflops"].get<double>()) : r["error"].get<std::string>()});
  }
  g.print(std::cout, table_width());
  return 0;
}

} // namespace ccsim::cli
