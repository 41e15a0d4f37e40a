// A file of sim/step/ that reaches up into the library and the command line, and into a file in no room of sim/:
// those three includes must be reported. Its include of sim/platform/ (a room below it) is allowed.
#include "api/run/Simulation.hpp"
#include "cli/Command.hpp"
#include "sim/platform/Topology.hpp"
#include "sim/Loose.hpp"
