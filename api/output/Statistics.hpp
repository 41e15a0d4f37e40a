#pragma once
// Summaries of prediction errors, shared by experiment results and `validate`.

#include <vector>

namespace ccsim::api {

/// The median of |x| over the finite values of `values`; NaN when there is none.
double median_abs(std::vector<double> values);

} // namespace ccsim::api
