// SimulationReport <-> the simulate JSON document. Keys are written in the order nlohmann::json keeps them (sorted),
// so the text depends only on the values.
#include "api/run/ReportJson.hpp"

#include "api/run/OperatorsJson.hpp"
#include "api/run/ReportFields.hpp"

#include <cmath>
#include <stdexcept>

namespace ccsim::api {

namespace {
using json = nlohmann::json;
using namespace report_fields;

json breakdown_json(const TimeBreakdown& b)
{
  return {{"compute_s", b.compute_s},         {"comm_s", b.comm_s},           {"exposed_comm_s", b.exposed_comm_s},
          {"compression_s", b.compression_s}, {"optimizer_s", b.optimizer_s}, {"allreduce_ms", b.allreduce_ms}};
}

json bytes_json(const BytesPerGpu& b) { return {{"inter_node", b.inter_node}, {"intra_node", b.intra_node}}; }

TimeBreakdown read_breakdown(const json& b, const char* where)
{
  return {number(b, "compute_s", where),     number(b, "comm_s", where),      number(b, "exposed_comm_s", where),
          number(b, "compression_s", where), number(b, "optimizer_s", where), number(b, "allreduce_ms", where)};
}

BytesPerGpu read_bytes(const json& b, const char* where)
{
  return {number(b, "inter_node", where), number(b, "intra_node", where)};
}
} // namespace

json to_json(const PhaseResult& p)
{
  json breakdown                         = breakdown_json(p.breakdown);
  breakdown["pipeline_forward_comm_ms"]  = p.pipeline_forward_comm_ms;
  breakdown["pipeline_backward_comm_ms"] = p.pipeline_backward_comm_ms;
  return {{"name", p.name},
          {"fraction", p.fraction},
          {"step_time_s", p.step_time_s},
          {"samples_per_s", p.samples_per_s},
          {"breakdown", breakdown},
          {"bytes_per_gpu", bytes_json(p.bytes_per_gpu)}};
}

json to_json(const SimulationReport& r)
{
  json breakdown                = breakdown_json(r.breakdown);
  breakdown["straggler_wait_s"] = r.straggler_wait_s;
  const auto& m                 = r.memory;
  json phases                   = json::array();
  for (const auto& p : r.phases)
    phases.push_back(to_json(p));
  const auto& c = r.config;
  json config   = {{"topology", c.topology},
                   {"workload", c.workload},
                   {"algorithm", c.algorithm},
                   {"gpus", c.gpus},
                   {"nodes", c.nodes},
                   {"dp", c.dp},
                   {"tp", c.tp},
                   {"pp", c.pp},
                   {"global_batch", c.global_batch},
                   {"batch_rule", c.batch_rule},
                   {"micro_batch", c.micro_batch},
                   {"grad_accumulation", c.grad_accumulation},
                   {"seq_len", c.seq_len},
                   {"network_model", c.network_model},
                   {"inter_node_gbps", c.inter_node_gbps},
                   {"params", c.params},
                   {"compute_source", c.compute_source},
                   {"forward_ms_per_micro_batch", c.forward_ms_per_micro_batch},
                   {"backward_ms_per_micro_batch", c.backward_ms_per_micro_batch}};
  if (c.ep)
    config["ep"] = *c.ep;
  if (c.overlap)
    config["overlap"] = *c.overlap;
  if (c.stragglers)
    config["stragglers"] = {{"compute_factor", c.stragglers->compute_factor},
                            {"kernel_factor", c.stragglers->kernel_factor},
                            {"cv", c.stragglers->cv},
                            {"seed", c.stragglers->seed},
                            {"slow_gpus", c.stragglers->slow_gpus}};
  json doc = {{"samples_per_s", r.samples_per_s},
              {"step_time_s", r.step_time_s},
              {"tflops_per_gpu", r.tflops_per_gpu},
              {"breakdown", breakdown},
              {"bytes_per_gpu", bytes_json(r.bytes_per_gpu)},
              {"memory_gb_per_gpu", r.memory_gb_per_gpu},
              {"memory",
               {{"fits", m.fits},
                {"capacity_gb", m.capacity_gb ? json(*m.capacity_gb) : json(nullptr)},
                {"activation_recomputation", m.activation_recomputation},
                {"gb_without_recomputation", m.gb_without_recomputation},
                {"gb_with_recomputation", m.gb_with_recomputation},
                {"breakdown_gb",
                 {{"weights", m.weights_gb},
                  {"gradients", m.gradients_gb},
                  {"optimizer_states", m.optimizer_states_gb},
                  {"compression_buffers", m.compression_buffers_gb},
                  {"optimizer_step_temporaries", m.optimizer_step_temporaries_gb},
                  {"activations", m.activations_gb},
                  {"activations_recomputed", m.activations_recomputed_gb}}},
                {"activations_note", m.activations_note}}},
              {"phases", phases},
              {"config", config},
              {"sim", {{"wall_s", r.wall_s}, {"events", r.events}, {"fidelity", r.fidelity}}}};
  if (r.model)
    doc["model"] = {{"params", r.model->params},
                    {"active_params", r.model->active_params},
                    {"tensors", r.model->tensors},
                    {"attention_flops", r.model->attention_flops},
                    {"flops_per_sample",
                     {{"counted", r.model->flops_per_sample},
                      {"causal", r.model->flops_per_sample_causal},
                      {"full", r.model->flops_per_sample_full},
                      {"no_attention", r.model->flops_per_sample_no_attention}}},
                    {"activation_bytes_per_layer", r.model->activation_bytes_per_layer}};
  if (r.operators)
    doc["operators"] = to_json(*r.operators);
  if (r.ranks_idle_s)
    doc["ranks_idle_s"] = *r.ranks_idle_s;
  if (r.links) {
    json links = json::array();
    for (const auto& l : *r.links)
      links.push_back({{"link", l.link}, {"bytes", l.bytes}, {"utilisation", l.utilisation}});
    doc["links"] = links;
  }
  doc["intervals"] = nlohmann::json::object();
  for (const auto& [metric, iv] : r.intervals)
    doc["intervals"][metric] = {{"low", iv.low}, {"high", iv.high}, {"why", iv.why}};
  if (r.links_over_time)
    doc["links_over_time"] = *r.links_over_time;
  if (r.trace)
    doc["trace"] = *r.trace;
  return doc;
}

SimulationReport report_from_json(const json& doc)
{
  SimulationReport r;
  r.samples_per_s    = number(doc, "samples_per_s", "/");
  r.step_time_s      = number(doc, "step_time_s", "/");
  r.tflops_per_gpu   = number(doc, "tflops_per_gpu", "/");
  const json& b      = at(doc, "breakdown", "/");
  r.breakdown        = read_breakdown(b, "/breakdown/");
  r.straggler_wait_s = number(b, "straggler_wait_s", "/breakdown/");
  r.bytes_per_gpu    = read_bytes(at(doc, "bytes_per_gpu", "/"), "/bytes_per_gpu/");
  r.memory_gb_per_gpu = number(doc, "memory_gb_per_gpu", "/");

  const json& m              = at(doc, "memory", "/");
  const char* mw             = "/memory/";
  r.memory.fits              = text(m, "fits", mw);
  const json& cap            = at(m, "capacity_gb", mw);
  r.memory.capacity_gb       = cap.is_null() ? std::nullopt : std::optional<double>(number(m, "capacity_gb", mw));
  const json& rec            = at(m, "activation_recomputation", mw);
  if (!rec.is_boolean())
    throw std::invalid_argument("/memory/activation_recomputation: not a boolean");
  r.memory.activation_recomputation = rec.get<bool>();
  r.memory.gb_without_recomputation = number(m, "gb_without_recomputation", mw);
  r.memory.gb_with_recomputation    = number(m, "gb_with_recomputation", mw);
  const json& mb                    = at(m, "breakdown_gb", mw);
  const char* mbw                   = "/memory/breakdown_gb/";
  r.memory.weights_gb                    = number(mb, "weights", mbw);
  r.memory.gradients_gb                  = number(mb, "gradients", mbw);
  r.memory.optimizer_states_gb           = number(mb, "optimizer_states", mbw);
  r.memory.compression_buffers_gb        = number(mb, "compression_buffers", mbw);
  r.memory.optimizer_step_temporaries_gb = number(mb, "optimizer_step_temporaries", mbw);
  r.memory.activations_gb                = number(mb, "activations", mbw);
  r.memory.activations_recomputed_gb     = number(mb, "activations_recomputed", mbw);
  r.memory.activations_note              = text(m, "activations_note", mw);

  const json& phases = at(doc, "phases", "/");
  if (!phases.is_array())
    throw std::invalid_argument("/phases: not an array");
  for (const auto& p : phases) {
    const char* pw = "/phases/*/";
    PhaseResult ph;
    ph.name                      = text(p, "name", pw);
    ph.fraction                  = number(p, "fraction", pw);
    ph.step_time_s               = number(p, "step_time_s", pw);
    ph.samples_per_s             = number(p, "samples_per_s", pw);
    const json& pb               = at(p, "breakdown", pw);
    ph.breakdown                 = read_breakdown(pb, "/phases/*/breakdown/");
    ph.pipeline_forward_comm_ms  = number(pb, "pipeline_forward_comm_ms", "/phases/*/breakdown/");
    ph.pipeline_backward_comm_ms = number(pb, "pipeline_backward_comm_ms", "/phases/*/breakdown/");
    ph.bytes_per_gpu             = read_bytes(at(p, "bytes_per_gpu", pw), "/phases/*/bytes_per_gpu/");
    r.phases.push_back(std::move(ph));
  }

  const json& c = at(doc, "config", "/");
  const char* cw = "/config/";
  auto& k        = r.config;
  k.topology     = text(c, "topology", cw);
  k.workload     = text(c, "workload", cw);
  k.algorithm    = text(c, "algorithm", cw);
  k.gpus         = integer<int>(c, "gpus", cw);
  k.nodes        = integer<int>(c, "nodes", cw);
  k.dp           = integer<int>(c, "dp", cw);
  k.tp           = integer<int>(c, "tp", cw);
  k.pp           = integer<int>(c, "pp", cw);
  if (c.contains("ep"))
    k.ep = integer<int>(c, "ep", cw);
  if (c.contains("overlap"))
    k.overlap = text(c, "overlap", cw);
  k.global_batch = integer<std::uint64_t>(c, "global_batch", cw);
  k.batch_rule   = text(c, "batch_rule", cw);
  k.micro_batch  = integer<std::uint64_t>(c, "micro_batch", cw);
  k.grad_accumulation = integer<int>(c, "grad_accumulation", cw);
  k.seq_len           = integer<int>(c, "seq_len", cw);
  k.network_model     = text(c, "network_model", cw);
  k.inter_node_gbps   = number(c, "inter_node_gbps", cw);
  const json& params  = at(c, "params", cw);
  if (!params.is_object())
    throw std::invalid_argument("/config/params: not an object");
  for (const auto& [key, value] : params.items()) {
    if (!value.is_number())
      throw std::invalid_argument("/config/params/" + key + ": not a number");
    k.params[key] = value.get<double>();
  }
  k.compute_source              = text(c, "compute_source", cw);
  k.forward_ms_per_micro_batch  = number(c, "forward_ms_per_micro_batch", cw);
  k.backward_ms_per_micro_batch = number(c, "backward_ms_per_micro_batch", cw);
  if (c.contains("stragglers")) {
    const json& s  = c["stragglers"];
    const char* sw = "/config/stragglers/";
    k.stragglers   = StragglerResult{number(s, "compute_factor", sw), number(s, "kernel_factor", sw),
                                     number(s, "cv", sw), integer<std::uint64_t>(s, "seed", sw),
                                     integer<std::size_t>(s, "slow_gpus", sw)};
  }

  if (doc.contains("model")) {
    const json& mo  = doc["model"];
    const char* mw  = "/model/";
    const json& f   = at(mo, "flops_per_sample", mw);
    const char* fw  = "/model/flops_per_sample/";
    r.model         = ModelResult{integer<std::uint64_t>(mo, "params", mw),
                                  integer<std::uint64_t>(mo, "active_params", mw),
                                  integer<std::uint64_t>(mo, "tensors", mw),
                                  text(mo, "attention_flops", mw),
                                  number(f, "counted", fw),
                                  number(f, "causal", fw),
                                  number(f, "full", fw),
                                  number(f, "no_attention", fw),
                                  number(mo, "activation_bytes_per_layer", mw)};
  }

  if (doc.contains("operators"))
    r.operators = operators_from_json(doc["operators"]);

  const json& sim = at(doc, "sim", "/");
  r.wall_s        = number(sim, "wall_s", "/sim/");
  r.events        = integer<std::uint64_t>(sim, "events", "/sim/");
  r.fidelity      = text(sim, "fidelity", "/sim/");
  if (doc.contains("ranks_idle_s")) {
    r.ranks_idle_s.emplace();
    for (const auto& v : doc["ranks_idle_s"]) {
      if (!v.is_number())
        throw std::invalid_argument("/ranks_idle_s: not a number");
      r.ranks_idle_s->push_back(v.get<double>());
    }
  }
  if (doc.contains("links")) {
    r.links.emplace();
    for (const auto& l : doc["links"])
      r.links->push_back({text(l, "link", "/links/*/"), number(l, "bytes", "/links/*/"),
                          number(l, "utilisation", "/links/*/")});
  }
  const json& intervals = at(doc, "intervals", "/");
  if (!intervals.is_object())
    throw std::invalid_argument("/intervals: not an object");
  for (const auto& [metric, iv] : intervals.items())
    r.intervals[metric] = {number(iv, "low", "/intervals/*/"), number(iv, "high", "/intervals/*/"),
                           text(iv, "why", "/intervals/*/")};
  if (doc.contains("links_over_time"))
    r.links_over_time = doc["links_over_time"];
  if (doc.contains("trace"))
    r.trace = doc["trace"];
  return r;
}

} // namespace ccsim::api
