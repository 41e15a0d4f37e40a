// Error-feedback buffer: plain loops over the persistent fp32 error.
#include "numerics/ErrorFeedback.hpp"

#include <algorithm>

namespace ccsim::numerics {

void ErrorFeedback::compensate(float* x) const
{
  const float* e = error_.data();
  for (std::size_t i = 0; i < error_.size(); ++i)
    x[i] += e[i];
}

void ErrorFeedback::update(const float* compensated, const float* sent)
{
  float* e = error_.data();
  for (std::size_t i = 0; i < error_.size(); ++i)
    e[i] = compensated[i] - sent[i];
}

void ErrorFeedback::update_sparse(const float* compensated, const std::vector<std::uint32_t>& sent_idx)
{
  std::copy(compensated, compensated + error_.size(), error_.begin());
  for (const std::uint32_t i : sent_idx)
    error_[i] = 0.0f; // sent exactly: nothing left over
}

} // namespace ccsim::numerics
