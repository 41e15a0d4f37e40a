#pragma once
// `list`'s options. Python answers the same question with ccsim.presets(kind) and ccsim.algorithms(), records per
// preset, rather than one document of every kind: the table names that function, and the parity test holds the two
// to the same kinds (python/tests/test_options.py).

#include "api/options/OptionTable.hpp"

#include <string>
#include <vector>

namespace ccsim::api {

struct ListCommand {
  std::vector<std::string> kinds; // topologies, workloads, algorithms, experiments: the ones asked for, in that order
};

const OptionTable<ListCommand>& list_options();

ListCommand build_list(const GivenValues& given);

} // namespace ccsim::api
