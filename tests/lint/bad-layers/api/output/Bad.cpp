// A file of api/output/ that reaches up a room of the library: reported. Its include of api/process/ is allowed.
#include "api/process/RunControl.hpp"
#include "api/run/Simulation.hpp"
