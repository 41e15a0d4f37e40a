#include "algorithms/LrSchedule.hpp"

#include "numerics/PortableMath.hpp"

#include <algorithm>
#include <cmath>

namespace ccsim::algorithms {

const std::vector<std::string>& lr_schedule_names()
{
  static const std::vector<std::string> names = {"constant", "bert", "linear", "onebit-lamb", "slamb"};
  return names;
}

double lr_scale(LrSchedule schedule, int step, int steps)
{
  const double t = step, T = std::max(1, steps);
  switch (schedule) {
  case LrSchedule::BERT: {
    const double warm = 12.5 / 152.0 * T, every = 520.0 / 152000.0 * T;
    return t <= warm ? t / warm : numerics::portable_pow(0.99, (t - warm) / every);
  }
  case LrSchedule::LINEAR: {
    const double warm = 0.1 * T;
    return t <= warm ? t / warm : std::max(0.0, (T - t) / (T - warm));
  }
  case LrSchedule::ONEBIT_LAMB: {
    const double warm = 450.0 / 5993.0 * T, every = 250.0 / 5993.0 * T;
    return t <= warm ? numerics::portable_pow(12.0, t / warm - 1.0) : numerics::portable_pow(0.9, (t - warm) / every);
  }
  case LrSchedule::SLAMB: {
    const double warm = 2000.0 / 7038.0, x = t / T;
    return x < warm ? x / warm : std::sqrt(std::max(0.0, 1.0 - x));
  }
  case LrSchedule::CONSTANT: break;
  }
  return 1.0;
}

} // namespace ccsim::algorithms
