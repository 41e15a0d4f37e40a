// SimulationReport <-> the simulate JSON document. Keys are written in the order nlohmann::json keeps them (sorted),
// so the text depends only on the values.
#include "api/run/ReportJson.hpp"

#include "api/run/JsonFields.hpp"
#include "api/run/Metrics.hpp"
#include "api/run/OperatorsJson.hpp"

#include <cmath>
#include <stdexcept>

namespace ccsim::api {

namespace {
using json = nlohmann::json;

/// The breakdown's fields are the metric table's (api/run/Metrics.hpp): a new one is serialised without a line here.
json breakdown_json(const TimeBreakdown& b)
{
  json out = json::object();
  for (const auto& m : metric_table())
    if (m.breakdown != nullptr)
      out[m.name] = b.*m.breakdown;
  return out;
}

json bytes_json(const BytesPerGpu& b) { return {{"inter_node", b.inter_node}, {"intra_node", b.intra_node}}; }

TimeBreakdown read_breakdown(const json& b, const char* where)
{
  TimeBreakdown out;
  for (const auto& m : metric_table())
    if (m.breakdown != nullptr)
      out.*m.breakdown = json_number(b, m.name, where);
  return out;
}

BytesPerGpu read_bytes(const json& b, const char* where)
{
  return {json_number(b, "inter_node", where), json_number(b, "intra_node", where)};
}

json config_json(const RunConfig& c)
{
  json config = {{"topology", c.topology},
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
  if (c.vpp > 1)
    config["vpp"] = c.vpp;
  if (c.cp > 1)
    config["cp"] = c.cp;
  if (c.zero_stage)
    config["zero_stage"] = *c.zero_stage;
  if (c.tp_overlap)
    config["tp_overlap"] = true;
  if (!c.pipeline_p2p.empty())
    config["pipeline_p2p"] = c.pipeline_p2p;
  if (c.overlap)
    config["overlap"] = *c.overlap;
  if (c.stragglers)
    config["stragglers"] = {{"compute_factor", c.stragglers->compute_factor},
                            {"kernel_factor", c.stragglers->kernel_factor},
                            {"cv", c.stragglers->cv},
                            {"seed", c.stragglers->seed},
                            {"slow_gpus", c.stragglers->slow_gpus}};
  return config;
}

json memory_json(const MemoryResult& m)
{
  json out = {{"fits", to_string(m.fit.verdict)},
          {"capacity_gb", m.fit.capacity_gb ? json(*m.fit.capacity_gb) : json(nullptr)},
          {"activation_recomputation", m.activation_recomputation},
          {"gb_without_recomputation", m.fit.gb_without_recomputation},
          {"gb_with_recomputation", m.fit.gb_with_recomputation},
          {"breakdown_gb",
           {{"weights", m.weights_gb},
            {"gradients", m.gradients_gb},
            {"optimizer_states", m.optimizer_states_gb},
            {"compression_buffers", m.compression_buffers_gb},
            {"optimizer_step_temporaries", m.optimizer_step_temporaries_gb},
            {"activations", m.activations_gb},
            {"activations_recomputed", m.activations_recomputed_gb}}},
          {"activations_note", m.activations_note}};
  if (m.fit.headroom_gb > 0) // only where a topology or the flag states it, so earlier results read the same
    out["headroom_gb"] = m.fit.headroom_gb;
  return out;
}

json model_json(const ModelResult& m)
{
  return {{"params", m.params},
          {"active_params", m.active_params},
          {"tensors", m.tensors},
          {"attention_flops", m.attention_flops},
          {"flops_per_sample",
           {{"counted", m.flops_per_sample},
            {"causal", m.flops_per_sample_causal},
            {"full", m.flops_per_sample_full},
            {"no_attention", m.flops_per_sample_no_attention}}},
          {"activation_bytes_per_layer", m.activation_bytes_per_layer}};
}

MemoryResult read_memory(const json& m)
{
  const char* mw     = "/memory/";
  const auto verdict = memory_verdict_named(json_text(m, "fits", mw));
  if (!verdict)
    throw std::invalid_argument("/memory/fits: not a memory verdict");
  MemoryResult out;
  out.fit.verdict                   = *verdict;
  const json& cap                   = json_field(m, "capacity_gb", mw);
  out.fit.capacity_gb = cap.is_null() ? std::nullopt : std::optional<double>(json_number(m, "capacity_gb", mw));
  if (m.contains("headroom_gb"))
    out.fit.headroom_gb = json_number(m, "headroom_gb", mw);
  out.activation_recomputation      = json_flag(m, "activation_recomputation", mw);
  out.fit.gb_without_recomputation  = json_number(m, "gb_without_recomputation", mw);
  out.fit.gb_with_recomputation     = json_number(m, "gb_with_recomputation", mw);
  const json& mb                    = json_field(m, "breakdown_gb", mw);
  const char* mbw                   = "/memory/breakdown_gb/";
  out.weights_gb                    = json_number(mb, "weights", mbw);
  out.gradients_gb                  = json_number(mb, "gradients", mbw);
  out.optimizer_states_gb           = json_number(mb, "optimizer_states", mbw);
  out.compression_buffers_gb        = json_number(mb, "compression_buffers", mbw);
  out.optimizer_step_temporaries_gb = json_number(mb, "optimizer_step_temporaries", mbw);
  out.activations_gb                = json_number(mb, "activations", mbw);
  out.activations_recomputed_gb     = json_number(mb, "activations_recomputed", mbw);
  out.activations_note              = json_text(m, "activations_note", mw);
  return out;
}

RunConfig read_config(const json& c)
{
  const char* cw = "/config/";
  RunConfig k;
  k.topology     = json_text(c, "topology", cw);
  k.workload     = json_text(c, "workload", cw);
  k.algorithm    = json_text(c, "algorithm", cw);
  k.gpus         = json_integer<int>(c, "gpus", cw);
  k.nodes        = json_integer<int>(c, "nodes", cw);
  k.dp           = json_integer<int>(c, "dp", cw);
  k.tp           = json_integer<int>(c, "tp", cw);
  k.pp           = json_integer<int>(c, "pp", cw);
  if (c.contains("ep"))
    k.ep = json_integer<int>(c, "ep", cw);
  if (c.contains("vpp"))
    k.vpp = json_integer<int>(c, "vpp", cw);
  if (c.contains("cp"))
    k.cp = json_integer<int>(c, "cp", cw);
  if (c.contains("zero_stage"))
    k.zero_stage = json_integer<int>(c, "zero_stage", cw);
  if (c.contains("tp_overlap"))
    k.tp_overlap = json_flag(c, "tp_overlap", cw);
  if (c.contains("pipeline_p2p"))
    k.pipeline_p2p = json_text(c, "pipeline_p2p", cw);
  if (c.contains("overlap"))
    k.overlap = json_text(c, "overlap", cw);
  k.global_batch = json_integer<std::uint64_t>(c, "global_batch", cw);
  k.batch_rule   = json_text(c, "batch_rule", cw);
  k.micro_batch  = json_integer<std::uint64_t>(c, "micro_batch", cw);
  k.grad_accumulation = json_integer<int>(c, "grad_accumulation", cw);
  k.seq_len           = json_integer<int>(c, "seq_len", cw);
  k.network_model     = json_text(c, "network_model", cw);
  k.inter_node_gbps   = json_number(c, "inter_node_gbps", cw);
  const json& params  = json_field(c, "params", cw);
  if (!params.is_object())
    throw std::invalid_argument("/config/params: not an object");
  for (const auto& [key, value] : params.items()) {
    if (!value.is_number())
      throw std::invalid_argument("/config/params/" + key + ": not a number");
    k.params[key] = value.get<double>();
  }
  k.compute_source              = json_text(c, "compute_source", cw);
  k.forward_ms_per_micro_batch  = json_number(c, "forward_ms_per_micro_batch", cw);
  k.backward_ms_per_micro_batch = json_number(c, "backward_ms_per_micro_batch", cw);
  if (c.contains("stragglers")) {
    const json& s  = c["stragglers"];
    const char* sw = "/config/stragglers/";
    k.stragglers   = StragglerResult{json_number(s, "compute_factor", sw), json_number(s, "kernel_factor", sw),
                                     json_number(s, "cv", sw), json_integer<std::uint64_t>(s, "seed", sw),
                                     json_integer<std::size_t>(s, "slow_gpus", sw)};
  }
  return k;
}

ModelResult read_model(const json& mo)
{
  const char* mw = "/model/";
  const json& f  = json_field(mo, "flops_per_sample", mw);
  const char* fw = "/model/flops_per_sample/";
  return {json_integer<std::uint64_t>(mo, "params", mw),
          json_integer<std::uint64_t>(mo, "active_params", mw),
          json_integer<std::uint64_t>(mo, "tensors", mw),
          json_text(mo, "attention_flops", mw),
          json_number(f, "counted", fw),
          json_number(f, "causal", fw),
          json_number(f, "full", fw),
          json_number(f, "no_attention", fw),
          json_number(mo, "activation_bytes_per_layer", mw)};
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
  json phases                   = json::array();
  for (const auto& p : r.phases)
    phases.push_back(to_json(p));
  json doc = {{"samples_per_s", r.samples_per_s},
              {"step_time_s", r.step_time_s},
              {"tflops_per_gpu", r.tflops_per_gpu},
              {"breakdown", breakdown},
              {"bytes_per_gpu", bytes_json(r.bytes_per_gpu)},
              {"memory_gb_per_gpu", r.memory_gb_per_gpu},
              {"memory", memory_json(r.memory)},
              {"phases", phases},
              {"config", config_json(r.config)},
              {"sim", {{"wall_s", r.wall_s}, {"events", r.events}, {"fidelity", r.fidelity}}}};
  // Tokens (issue 44): what LLM users count in, derived from the report by the metric table's one definition;
  // only where the run has a sequence length. Derived, so a reader recomputes them and never reads them back.
  if (r.config.seq_len > 0)
    for (const Metric m : {Metric::TOKENS_PER_S, Metric::TOKENS_PER_S_PER_GPU, Metric::DAYS_PER_TRILLION_TOKENS})
      doc[std::string(metric_name(m))] = metric_value(r, m);
  if (r.model)
    doc["model"] = model_json(*r.model);
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
  doc["intervals"] = to_json(r.intervals, /*why=*/true);
  if (r.links_over_time)
    doc["links_over_time"] = *r.links_over_time;
  if (r.trace)
    doc["trace"] = *r.trace;
  return doc;
}

PhaseResult phase_from_json(const json& p)
{
  const char* pw = "/phases/*/";
  PhaseResult ph;
  ph.name                      = json_text(p, "name", pw);
  ph.fraction                  = json_number(p, "fraction", pw);
  ph.step_time_s               = json_number(p, "step_time_s", pw);
  ph.samples_per_s             = json_number(p, "samples_per_s", pw);
  const json& pb               = json_field(p, "breakdown", pw);
  ph.breakdown                 = read_breakdown(pb, "/phases/*/breakdown/");
  ph.pipeline_forward_comm_ms  = json_number(pb, "pipeline_forward_comm_ms", "/phases/*/breakdown/");
  ph.pipeline_backward_comm_ms = json_number(pb, "pipeline_backward_comm_ms", "/phases/*/breakdown/");
  ph.bytes_per_gpu             = read_bytes(json_field(p, "bytes_per_gpu", pw), "/phases/*/bytes_per_gpu/");
  return ph;
}

json to_json(const std::map<Metric, Interval>& intervals, bool why)
{
  json out = json::object();
  for (const auto& [metric, iv] : intervals) {
    out[metric_name(metric)] = {{"low", iv.low}, {"high", iv.high}};
    if (why)
      out[metric_name(metric)]["why"] = iv.why;
  }
  return out;
}

std::map<Metric, Interval> intervals_from_json(const json& doc, bool why)
{
  if (!doc.is_object())
    throw std::invalid_argument("/intervals: not an object");
  std::map<Metric, Interval> out;
  for (const auto& [name, iv] : doc.items()) {
    const auto metric = metric_named(name);
    if (!metric)
      throw std::invalid_argument("/intervals/" + name + ": not a metric");
    out[*metric] = {json_number(iv, "low", "/intervals/*/"), json_number(iv, "high", "/intervals/*/"),
                    why ? json_text(iv, "why", "/intervals/*/") : std::string()};
  }
  return out;
}

SimulationReport report_from_json(const json& doc)
{
  SimulationReport r;
  r.samples_per_s    = json_number(doc, "samples_per_s", "/");
  r.step_time_s      = json_number(doc, "step_time_s", "/");
  r.tflops_per_gpu   = json_number(doc, "tflops_per_gpu", "/");
  const json& b      = json_field(doc, "breakdown", "/");
  r.breakdown        = read_breakdown(b, "/breakdown/");
  r.straggler_wait_s = json_number(b, "straggler_wait_s", "/breakdown/");
  r.bytes_per_gpu    = read_bytes(json_field(doc, "bytes_per_gpu", "/"), "/bytes_per_gpu/");
  r.memory_gb_per_gpu = json_number(doc, "memory_gb_per_gpu", "/");

  r.memory            = read_memory(json_field(doc, "memory", "/"));

  const json& phases = json_field(doc, "phases", "/");
  if (!phases.is_array())
    throw std::invalid_argument("/phases: not an array");
  for (const auto& p : phases)
    r.phases.push_back(phase_from_json(p));

  r.config = read_config(json_field(doc, "config", "/"));

  if (doc.contains("model"))
    r.model = read_model(doc["model"]);
  if (doc.contains("operators"))
    r.operators = operators_from_json(doc["operators"]);

  const json& sim = json_field(doc, "sim", "/");
  r.wall_s        = json_number(sim, "wall_s", "/sim/");
  r.events        = json_integer<std::uint64_t>(sim, "events", "/sim/");
  r.fidelity      = json_text(sim, "fidelity", "/sim/");
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
      r.links->push_back({json_text(l, "link", "/links/*/"), json_number(l, "bytes", "/links/*/"),
                          json_number(l, "utilisation", "/links/*/")});
  }
  r.intervals = intervals_from_json(json_field(doc, "intervals", "/"), /*why=*/true);
  if (doc.contains("links_over_time"))
    r.links_over_time = doc["links_over_time"];
  if (doc.contains("trace"))
    r.trace = doc["trace"];
  return r;
}

} // namespace ccsim::api
