// Reading a compute measurement document (ComputeMeasurement.hpp).
#include "api/run/ComputeMeasurement.hpp"

#include "io/JsonInput.hpp"

#include <algorithm>

namespace ccsim::api {

namespace {
// Bounds a real device run stays far inside: a kernel of 1 ns to 1,000 s, GEMM dimensions up to 2^24.
constexpr io::Range kMicroseconds{1e-3, 1e9};
constexpr io::Range kDimension{1, 16777216};
constexpr io::Range kBytes{1, 1e15};
} // namespace

ComputeMeasurement read_compute_measurement(const nlohmann::json& doc, const std::string& file)
{
  const io::JsonObject root(doc, file);
  root.allow_only({"device", "source", "launch_us", "elementwise", "gemms", "attention", "layers"});
  ComputeMeasurement m;
  m.file   = file;
  m.source = root.string("source");
  const io::JsonObject device = root.object("device");
  m.device   = device.string("name");
  m.sms      = static_cast<int>(device.integer_in("sms", io::Range{1, 100000}));
  m.launch_s = root.number_in("launch_us", io::Range{0, 1e6}) * 1e-6;
  for (const io::JsonObject& e : root.objects("elementwise")) {
    e.allow_only({"kernel", "bytes", "us", "GBps"});
    m.elementwise.push_back({e.string("kernel"), e.number_in("bytes", kBytes), e.number_in("us", kMicroseconds) * 1e-6});
  }
  for (const io::JsonObject& g : root.objects("gemms")) {
    g.allow_only({"layer", "op", "m", "n", "k", "batch", "layout", "dtype", "fp32_accumulate", "us", "tflops",
                  "launches", "error"});
    if (g.has("error"))
      continue; // the device refused the shape: nothing measured
    MeasuredGemm r;
    r.layer = g.string("layer");
    r.op    = g.string("op");
    r.shape = {static_cast<double>(g.integer_in("m", kDimension)), static_cast<double>(g.integer_in("n", kDimension)),
               static_cast<double>(g.integer_in("k", kDimension)),
               static_cast<double>(g.integer_in("batch", kDimension))};
    g.choice("layout", {"TN", "NN", "NT"});
    r.precision       = *sim::parse_precision(g.choice("dtype", {"bf16", "fp16", "fp8"}));
    r.fp32_accumulate = g.boolean("fp32_accumulate");
    r.seconds         = g.number_in("us", kMicroseconds) * 1e-6;
    m.gemms.push_back(r);
  }
  if (root.has("attention"))
    for (const io::JsonObject& a : root.objects("attention")) {
      a.allow_only({"backend", "batch", "heads", "seq", "head_dim", "forward_us", "backward_us", "source"});
      m.attention.push_back({a.choice("backend", {"flash", "cudnn"}), a.integer_in("batch", kDimension),
                             a.integer_in("heads", kDimension),
                             a.integer_in("seq", kDimension), a.integer_in("head_dim", kDimension),
                             a.number_in("forward_us", kMicroseconds) * 1e-6,
                             a.number_in("backward_us", kMicroseconds) * 1e-6});
    }
  if (root.has("layers"))
    for (const io::JsonObject& l : root.objects("layers")) {
      l.allow_only({"attention_backend", "hidden", "heads", "ffn", "seq", "micro_batch", "forward_us",
                    "forward_backward_us", "source"});
      MeasuredLayer r{l.choice("attention_backend", {"flash", "cudnn"}), l.integer_in("hidden", kDimension), l.integer_in("heads", kDimension), l.integer_in("ffn", kDimension),
                      l.integer_in("seq", kDimension),    l.integer_in("micro_batch", kDimension),
                      l.number_in("forward_us", kMicroseconds) * 1e-6,
                      l.number_in("forward_backward_us", kMicroseconds) * 1e-6};
      if (r.hidden % r.heads != 0)
        throw io::InputError(file, l.child_pointer("heads"), "heads must divide hidden");
      if (r.forward_backward_s < r.forward_s)
        throw io::InputError(file, l.child_pointer("forward_backward_us"), "is shorter than forward_us");
      const bool timed = std::any_of(m.attention.begin(), m.attention.end(),
                                     [&](const MeasuredAttention& a) { return a.backend == r.attention_backend; });
      if (!timed)
        throw io::InputError(file, l.child_pointer("attention_backend"),
                             "no attention row measures the \"" + r.attention_backend + "\" kernel this layer ran");
      m.layers.push_back(r);
    }
  return m;
}

} // namespace ccsim::api
