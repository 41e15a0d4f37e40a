#pragma once
// `collective`'s options: the table both front ends generate their arguments from, and the builder that reads what was
// given into a CollectiveRequest (api/run/CollectiveRequest.hpp).

#include "api/options/OptionTable.hpp"
#include "api/run/CollectiveRequest.hpp"

namespace ccsim::api {

const OptionTable<CollectiveRequest>& collective_options();

CollectiveRequest build_collective(const GivenValues& given);

} // namespace ccsim::api
