#include "api/output/Statistics.hpp"

#include <algorithm>
#include <cmath>

namespace ccsim::api {

double median_abs(std::vector<double> v)
{
  std::erase_if(v, [](double x) { return !std::isfinite(x); });
  if (v.empty())
    return std::nan("");
  for (auto& x : v)
    x = std::abs(x);
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace ccsim::api
