// One rank's matrices (algorithms/lowcomm/RankMatrices.hpp).
#include "algorithms/lowcomm/RankMatrices.hpp"

#include "sim/model/TransformerArchitecture.hpp"

#include <algorithm>

namespace ccsim::algorithms {

RankMatrices rank_matrices(const sim::StepShape& s)
{
  RankMatrices r;
  const double tp = std::max(1, s.tp);
  r.hidden        = s.hidden;
  r.layers        = static_cast<double>(s.layers) / std::max(1, s.pp);
  if (s.architecture) {
    const auto& a        = *s.architecture;
    const double h       = static_cast<double>(a.hidden);
    r.hidden             = h;
    r.layers             = static_cast<double>(a.layers) / std::max(1, s.pp);
    const double q       = static_cast<double>(a.query_width()), kv = static_cast<double>(a.kv_width());
    const double ffn     = static_cast<double>(a.ffn_hidden);
    const double up      = a.activation == sim::Activation::SWIGLU ? 2 * ffn : ffn; // fused gate + up
    const double experts = a.moe() ? std::max(1.0, static_cast<double>(a.experts) / std::max(1, s.ep)) : 1.0;
    r.layer.push_back({(q + 2 * kv) / tp, h, 1});
    r.layer.push_back({h, q / tp, 1});
    r.layer.push_back({up / tp, h, experts});
    r.layer.push_back({h, ffn / tp, experts});
    if (a.moe())
      r.layer.push_back({static_cast<double>(a.experts), h, 1}); // the router
    r.layer.push_back({static_cast<double>(sim::parameter_counts(a).norms_per_layer), 0, 1});
    if (a.linear_bias)
      r.layer.push_back({(q + 2 * kv) / tp + h + experts * (up / tp + h), 0, 1});
  } else if (r.hidden > 0 && r.layers > 0) {
    const double h = r.hidden;
    r.layer.push_back({3 * h / tp, h, 1});
    r.layer.push_back({h, h / tp, 1});
    r.layer.push_back({4 * h / tp, h, 1});
    r.layer.push_back({h, 4 * h / tp, 1});
    r.layer.push_back({13 * h, 0, 1}); // QKV, projection, fc1 and fc2 biases (3h + h + 4h + h), two LayerNorms (4h)
  } else {
    r.shapeless = true;
  }
  return r;
}

} // namespace ccsim::algorithms
