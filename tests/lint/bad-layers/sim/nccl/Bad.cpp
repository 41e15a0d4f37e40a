// sim/nccl/ sits below sim/collective/: an include of it is reported; one of sim/layout/ is allowed.
#include "sim/collective/Collectives.hpp"
#include "sim/layout/Round.hpp"
