#include "numerics/MomentumMask.hpp"

#include <stdexcept>

namespace ccsim::numerics {

const std::vector<std::string>& momentum_mask_names()
{
  static const std::vector<std::string> names = {"none", "auto"};
  return names;
}

MomentumMask momentum_mask_of(const Hyper& hyper)
{
  const auto it = hyper.find("momentum_mask");
  if (it == hyper.end() || it->second == 0)
    return MomentumMask::NONE;
  if (it->second == 1)
    return MomentumMask::AUTO;
  throw std::invalid_argument("momentum_mask must be 0 (none) or 1 (auto)");
}

Vec momentum_mask_from_variance(const Vec& frozen_v)
{
  return (frozen_v.array() > 0.0f).cast<float>().matrix();
}

} // namespace ccsim::numerics
