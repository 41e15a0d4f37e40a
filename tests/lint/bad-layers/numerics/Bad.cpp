// numerics/ knows neither SimGrid nor the algorithms: both reported.
#include "algorithms/Registry.hpp"
#include "sim/Collectives.hpp"
