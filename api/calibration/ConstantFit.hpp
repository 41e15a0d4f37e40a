#pragma once
// The one fitting engine behind every calibrated constant: `calibrate --nccl-tests` (NIC bandwidth and latency from a
// collective's times), `calibrate --steps` (any constants from step times) and `validate` (refits with rows left out).
// A model predicts every measured value from trial constants (each prediction is a batch of simulations); the engine
// memoises the predictions and moves the constants to fit, by one of two solvers:
// - Gauss-Newton on relative errors, for a model close to affine in its parameters (a collective's time is affine in
//   1/bandwidth and in latency on an alpha-beta network, so one step lands and the rest confirm);
// - Gauss-Newton on log errors in log space (coordinate descent, each coordinate a golden-section search, where the
//   rows leave a constant free), for any model of a few constants;
// - bounded robust least squares (Levenberg-Marquardt within box bounds, soft-L1 loss, priors, several starts), for a
//   model of many constants whose predictions switch between regimes (the NCCL model's algorithms and protocols).

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace ccsim::api {

class ConstantFit {
public:
  /// Predicted values, one per measured value, for the given constants.
  using Predict = std::function<std::vector<double>(const std::vector<double>& constants)>;

  ConstantFit(Predict predict, std::vector<double> measured);

  const std::vector<double>& measured() const { return measured_; }
  /// The model's prediction of every measured value (memoised: each distinct set of constants is simulated once).
  const std::vector<double>& predict(const std::vector<double>& constants);
  /// Distinct constant sets predicted so far.
  std::size_t evaluations() const { return memo_.size(); }

  /// The constants minimising the sum over rows with use[i] of log(predicted / measured)^2 (a prediction that is not a
  /// positive finite number counts as a factor e^10 off): Gauss-Newton in log space from `start`, each step at most a
  /// factor e^0.5 and halved until the sum falls, until a step moves no constant by 0.2 %; where the rows do not pin
  /// every constant down, coordinate descent (each coordinate a golden-section search within [start / 2, 2 x start],
  /// to 0.2 %, at most 4 sweeps).
  std::vector<double> minimise_log_error(const std::vector<bool>& use, std::vector<double> start);

  /// A parameter of gauss_newton: its start, how it may move, and the scales of its finite difference and of "settled".
  struct Parameter {
    double value;
    enum class Bound { POSITIVE, NON_NEGATIVE } bound; // a step that would cross 0 is halved / the value is clamped at 0
    double min_difference = 0; // the finite difference is max(1 % of the value, this)
    double settle_scale   = 0; // settled when every change is below 1e-9 x max(|value|, this)
  };
  /// Gauss-Newton on the relative errors (predicted - measured) / measured of every row, with a forward-difference
  /// Jacobian, for at most `iterations` steps or until settled. Empty when the rows do not pin every parameter down
  /// (a singular normal matrix: some parameter does not change the predictions).
  std::optional<std::vector<double>> gauss_newton(std::vector<Parameter> start, int iterations = 8);

  /// A constant of fit_bounded: where to start, its bounds (`log_scale`: it moves in log space, lo > 0), and a prior
  /// that holds it near `prior` with `prior_weight` per unit of log deviation (linear ones: of (v - prior) / (|prior|
  /// + `prior_scale`)); weight 0: no prior.
  struct Bounded {
    double start;
    double lo, hi;
    bool log_scale       = true;
    double prior         = 0;
    double prior_weight  = 0;
    double prior_scale   = 20;
  };
  struct BoundedFit {
    std::vector<double> values;
    double cost = 0;          // robust loss of the rows plus the priors' squares, at `values`
    double rows_rms = 0;      // root mean square of log(predicted / measured) over the rows used
  };
  /// Minimises, over the rows with use[i], the soft-L1 loss 2 f^2 (sqrt(1 + (r/f)^2) - 1) of r = log(predicted /
  /// measured) (least squares below f, least absolute deviation above: a few rows no candidate can follow do not pull
  /// the rest), plus the priors' squares, within the bounds: Levenberg-Marquardt on the square roots of the terms,
  /// from `starts` points (the given start, then points drawn uniformly within the bounds from a fixed seed, so a
  /// fit is reproducible), then from `extra_starts` (values, one per constant). A prediction that is not a positive
  /// finite number counts as a factor e^10 off.
  BoundedFit fit_bounded(const std::vector<Bounded>& params, const std::vector<bool>& use, double f_scale = 0.15,
                         int starts = 6, const std::vector<std::vector<double>>& extra_starts = {});

private:
  Predict predict_;
  std::vector<double> measured_;
  std::map<std::vector<double>, std::vector<double>> memo_;
};

} // namespace ccsim::api
