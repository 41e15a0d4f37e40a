// numerics/ knows neither SimGrid nor the algorithms, nor its CUDA twin (numerics/cuda/ includes numerics' kernel
// interface, one way): all three reported.
#include "algorithms/Registry.hpp"
#include "sim/collective/Collectives.hpp"
#include "numerics/cuda/Device.hpp"
