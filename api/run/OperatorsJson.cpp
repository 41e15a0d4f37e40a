// OperatorsResult from the per-operator model, and to and from JSON. Times are milliseconds in the report (the
// breakdown's convention for per-micro-batch times, as forward_ms_per_micro_batch).
#include "api/run/OperatorsJson.hpp"

#include "api/run/JsonFields.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace ccsim::api {

namespace {
using json = nlohmann::json;

std::string pass_name(sim::Pass p)
{
  return p == sim::Pass::FORWARD ? "forward" : p == sim::Pass::BACKWARD ? "backward" : "recompute";
}

std::string kind_name(sim::OpKind k)
{
  return k == sim::OpKind::GEMM ? "gemm" : k == sim::OpKind::ATTENTION ? "attention" : "elementwise";
}

OperatorBlock block_result(const sim::BlockCost& b)
{
  OperatorBlock out;
  out.forward_ms   = b.forward_s * 1e3;
  out.backward_ms  = b.backward_s * 1e3;
  out.recompute_ms = b.recompute_s * 1e3;
  for (const auto& [op, cost] : b.ops) {
    OperatorResult r;
    r.name    = op.name;
    r.pass    = pass_name(op.pass);
    r.kind    = kind_name(op.kind);
    r.bound   = cost.memory_bound ? "memory" : "compute";
    r.time_ms = cost.seconds * 1e3;
    r.flops   = cost.flops;
    r.bytes   = cost.bytes;
    if (op.kind == sim::OpKind::GEMM) {
      r.m       = op.gemm.m;
      r.n       = op.gemm.n;
      r.k       = op.gemm.k;
      r.batch   = op.gemm.batch;
      r.tile    = fmt::format("{}x{}", cost.tile.m, cost.tile.n);
      r.split_k = cost.split_k;
      r.waves   = cost.waves;
    }
    out.ops.push_back(std::move(r));
  }
  return out;
}

json op_json(const OperatorResult& r)
{
  json j = {{"name", r.name},   {"pass", r.pass},   {"kind", r.kind},  {"bound", r.bound},
            {"time_ms", r.time_ms}, {"flops", r.flops}, {"bytes", r.bytes}};
  if (r.kind == "gemm") {
    j["gemm"] = {{"m", r.m},       {"n", r.n},             {"k", r.k},        {"batch", r.batch},
                 {"tile", r.tile}, {"split_k", r.split_k}, {"waves", r.waves}};
  }
  return j;
}

json block_json(const OperatorBlock& b)
{
  json ops = json::array();
  for (const auto& r : b.ops)
    ops.push_back(op_json(r));
  return {{"forward_ms", b.forward_ms}, {"backward_ms", b.backward_ms}, {"recompute_ms", b.recompute_ms}, {"ops", ops}};
}

OperatorBlock read_block(const json& b, const std::string& where)
{
  OperatorBlock out;
  out.forward_ms   = json_number(b, "forward_ms", where);
  out.backward_ms  = json_number(b, "backward_ms", where);
  out.recompute_ms = json_number(b, "recompute_ms", where);
  const json& ops  = json_field(b, "ops", where);
  if (!ops.is_array())
    throw std::invalid_argument(where + "ops: not an array");
  const std::string ow = where + "ops/*/";
  for (const auto& o : ops) {
    OperatorResult r;
    r.name    = json_text(o, "name", ow);
    r.pass    = json_text(o, "pass", ow);
    r.kind    = json_text(o, "kind", ow);
    r.bound   = json_text(o, "bound", ow);
    r.time_ms = json_number(o, "time_ms", ow);
    r.flops   = json_number(o, "flops", ow);
    r.bytes   = json_number(o, "bytes", ow);
    if (r.kind == "gemm") {
      const json& g        = json_field(o, "gemm", ow);
      const std::string gw = ow + "gemm/";
      r.m       = json_number(g, "m", gw);
      r.n       = json_number(g, "n", gw);
      r.k       = json_number(g, "k", gw);
      r.batch   = json_number(g, "batch", gw);
      r.tile    = json_text(g, "tile", gw);
      r.split_k = json_integer<int>(g, "split_k", gw);
      r.waves   = json_number(g, "waves", gw);
    }
    out.ops.push_back(std::move(r));
  }
  return out;
}
} // namespace

OperatorsResult operators_result(const sim::ModelCompute& model, sim::Precision precision, sim::Recompute recompute)
{
  OperatorsResult o;
  o.precision        = sim::to_string(precision);
  o.recompute        = sim::to_string(recompute);
  o.layers_per_stage = model.layers_per_stage;
  o.slowest_stage    = model.slowest.stage;
  o.layer            = block_result(model.layer);
  o.embedding        = block_result(model.embedding);
  o.output           = block_result(model.output);
  return o;
}

json to_json(const OperatorsResult& o)
{
  return {{"precision", o.precision},
          {"recompute", o.recompute},
          {"layers_per_stage", o.layers_per_stage},
          {"slowest_stage", o.slowest_stage},
          {"layer", block_json(o.layer)},
          {"embedding", block_json(o.embedding)},
          {"output", block_json(o.output)}};
}

OperatorsResult operators_from_json(const json& doc)
{
  const std::string w = "/operators/";
  OperatorsResult o;
  o.precision         = json_text(doc, "precision", w);
  o.recompute         = json_text(doc, "recompute", w);
  const json& stages  = json_field(doc, "layers_per_stage", w);
  if (!stages.is_array())
    throw std::invalid_argument(w + "layers_per_stage: not an array");
  for (const auto& n : stages) {
    if (!n.is_number_integer())
      throw std::invalid_argument(w + "layers_per_stage: not an integer");
    o.layers_per_stage.push_back(n.get<int>());
  }
  o.slowest_stage = json_integer<int>(doc, "slowest_stage", w);
  o.layer         = read_block(json_field(doc, "layer", w), w + "layer/");
  o.embedding     = read_block(json_field(doc, "embedding", w), w + "embedding/");
  o.output        = read_block(json_field(doc, "output", w), w + "output/");
  return o;
}

} // namespace ccsim::api
