#include "algorithms/LrSchedule.hpp"

#include <algorithm>
#include <cmath>

namespace ccsim::algorithms {

const std::vector<std::string>& lr_schedule_names()
{
  static const std::vector<std::string> names = {"constant", "bert", "linear"};
  return names;
}

double lr_scale(LrSchedule schedule, int step, int steps)
{
  const double t = step, T = std::max(1, steps);
  switch (schedule) {
  case LrSchedule::BERT: {
    const double warm = 12.5 / 152.0 * T, every = 520.0 / 152000.0 * T;
    return t <= warm ? t / warm : std::pow(0.99, (t - warm) / every);
  }
  case LrSchedule::LINEAR: {
    const double warm = 0.1 * T;
    return t <= warm ? t / warm : std::max(0.0, (T - t) / (T - warm));
  }
  case LrSchedule::CONSTANT: break;
  }
  return 1.0;
}

} // namespace ccsim::algorithms
