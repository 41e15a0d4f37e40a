// A file of sim/ that reaches up into the library and the command line: both includes must be reported.
#include "api/run/Simulation.hpp"
#include "cli/Command.hpp"
#include "sim/Topology.hpp"
