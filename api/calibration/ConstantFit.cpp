// The fitting engine; see ConstantFit.hpp.
#include "api/calibration/ConstantFit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>

namespace ccsim::api {

namespace {
/// Determinant of a small square matrix by cofactor expansion along the first row (the normal matrices here have one
/// row per fitted constant: two or three). For 2 x 2 it is exactly a00 a11 - a01 a10.
double determinant(const std::vector<std::vector<double>>& a)
{
  const std::size_t n = a.size();
  if (n == 1)
    return a[0][0];
  if (n == 2)
    return a[0][0] * a[1][1] - a[0][1] * a[1][0];
  double det = 0;
  for (std::size_t c = 0; c < n; ++c) {
    std::vector<std::vector<double>> minor;
    for (std::size_t r = 1; r < n; ++r) {
      std::vector<double> row;
      for (std::size_t k = 0; k < n; ++k)
        if (k != c)
          row.push_back(a[r][k]);
      minor.push_back(row);
    }
    det += (c % 2 == 0 ? 1 : -1) * a[0][c] * determinant(minor);
  }
  return det;
}
/// Solves a x = b for a small dense system by Gaussian elimination with partial pivoting; false when singular.
bool solve(std::vector<std::vector<double>> a, std::vector<double> b, std::vector<double>& x)
{
  const std::size_t n = b.size();
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::abs(a[r][c]) > std::abs(a[pivot][c]))
        pivot = r;
    if (!(std::abs(a[pivot][c]) > 1e-300))
      return false;
    std::swap(a[c], a[pivot]);
    std::swap(b[c], b[pivot]);
    for (std::size_t r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      for (std::size_t k = c; k < n; ++k)
        a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  x.assign(n, 0);
  for (std::size_t c = n; c-- > 0;) {
    double v = b[c];
    for (std::size_t k = c + 1; k < n; ++k)
      v -= a[c][k] * x[k];
    x[c] = v / a[c][c];
  }
  return true;
}

/// The normal equations of a linearised least squares: J^T J and -J^T r, for a Jacobian stored by parameter
/// (jac[k][i] = d r_i / d x_k).
void normal_equations(const std::vector<std::vector<double>>& jac, const std::vector<double>& r,
                      std::vector<std::vector<double>>& jtj, std::vector<double>& minus_jtr)
{
  const std::size_t n = jac.size();
  jtj.assign(n, std::vector<double>(n, 0));
  minus_jtr.assign(n, 0);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b)
      for (std::size_t i = 0; i < r.size(); ++i)
        jtj[a][b] += jac[a][i] * jac[b][i];
    for (std::size_t i = 0; i < r.size(); ++i)
      minus_jtr[a] -= jac[a][i] * r[i];
  }
}

constexpr double kLogTolerance = 0.002; // in log space: 0.2 %

/// Gauss-Newton on the log residuals, the constants in log space: a forward-difference Jacobian (1 % steps), the
/// normal equations' step scaled so that no constant moves by more than a factor e^0.5, then halved until the sum of
/// squares falls; it stops when a step moves every constant by less than 0.2 % or none falls. Empty when the rows in
/// use do not pin every constant down (one moves no residual, or two move them alike): the caller falls back to
/// coordinate descent. The log error of a ring time or a step time is close to affine in log bandwidth or log
/// throughput, so a few iterations land where coordinate descent, zig-zagging along the valley two
/// correlated constants make (NIC and NVLink bandwidth, a queue and its drain rate), stopped after its fourth sweep
/// short of the minimum (issue 49: 5,279 simulations for `validate` instead of 61,506, every in-sample fit's sum of
/// squares equal or lower).
template <class Residuals, class Squares>
std::optional<std::vector<double>> log_gauss_newton(const Residuals& residuals, const Squares& squares,
                                                    std::vector<double> u)
{
  constexpr double kDifference = 0.01, kMaxStep = 0.5;
  const std::size_t n = u.size();
  auto r              = residuals(u);
  double loss         = squares(r);
  for (int iteration = 0; iteration < 20; ++iteration) {
    std::vector<std::vector<double>> jacobian(n);
    for (std::size_t k = 0; k < n; ++k) {
      auto shifted = u;
      shifted[k] += kDifference;
      const auto rk = residuals(shifted);
      for (std::size_t i = 0; i < r.size(); ++i)
        jacobian[k].push_back((rk[i] - r[i]) / kDifference);
    }
    std::vector<std::vector<double>> jtj;
    std::vector<double> minus_jtr;
    normal_equations(jacobian, r, jtj, minus_jtr);
    double diagonal = 1e-12;
    for (std::size_t a = 0; a < n; ++a)
      diagonal *= jtj[a][a];
    std::vector<double> step;
    if (!(determinant(jtj) > diagonal) || !solve(jtj, minus_jtr, step))
      return iteration == 0 ? std::nullopt : std::optional(u);
    double largest = 0;
    for (const double d : step)
      largest = std::max(largest, std::abs(d));
    double t = largest > kMaxStep ? kMaxStep / largest : 1;
    bool fell = false;
    for (int halving = 0; halving < 8 && !fell; ++halving, t /= 2) {
      auto next = u;
      for (std::size_t k = 0; k < n; ++k)
        next[k] += t * step[k];
      auto r_next = residuals(next);
      if (const double l = squares(r_next); l < loss) {
        u = next, r = std::move(r_next), loss = l, fell = true;
        largest *= t;
      }
    }
    if (!fell || largest < kLogTolerance)
      break;
  }
  return u;
}

/// Coordinate descent in log space, each coordinate a golden-section search within a factor 2 of its start, to
/// 0.2 %, until a sweep moves no constant by more than that (at most 4 sweeps): for rows that do not pin every
/// constant down, where Gauss-Newton has no step.
template <class Loss>
std::vector<double> log_coordinate_descent(const Loss& loss, std::vector<double> u)
{
  const double golden = (std::sqrt(5.0) - 1) / 2;
  for (int sweep = 0; sweep < 4; ++sweep) {
    double moved = 0;
    for (std::size_t c = 0; c < u.size(); ++c) {
      auto at = [&](double log_value) {
        auto v = u;
        v[c]   = log_value;
        return loss(v);
      };
      double lo = u[c] - std::log(2.0), hi = u[c] + std::log(2.0);
      double a = hi - golden * (hi - lo), b = lo + golden * (hi - lo);
      double fa = at(a), fb = at(b);
      while (hi - lo > kLogTolerance) {
        if (fa <= fb) {
          hi = b, b = a, fb = fa;
          a  = hi - golden * (hi - lo);
          fa = at(a);
        } else {
          lo = a, a = b, fa = fb;
          b  = lo + golden * (hi - lo);
          fb = at(b);
        }
      }
      const double best = fa <= fb ? a : b;
      moved             = std::max(moved, std::abs(best - u[c]));
      u[c]              = best;
    }
    if (u.size() == 1 || moved <= kLogTolerance)
      break;
  }
  return u;
}
} // namespace

ConstantFit::ConstantFit(Predict predict, std::vector<double> measured)
    : predict_(std::move(predict)), measured_(std::move(measured))
{
}

const std::vector<double>& ConstantFit::predict(const std::vector<double>& constants)
{
  if (const auto it = memo_.find(constants); it != memo_.end())
    return it->second;
  return memo_[constants] = predict_(constants);
}

std::vector<double> ConstantFit::minimise_log_error(const std::vector<bool>& use, std::vector<double> start)
{
  // The residuals log(predicted / measured) of the rows in use, at log-constants u.
  const auto residuals = [&](const std::vector<double>& u) {
    std::vector<double> constants(u.size());
    for (std::size_t k = 0; k < u.size(); ++k)
      constants[k] = std::exp(u[k]);
    const auto& predicted = predict(constants);
    std::vector<double> r;
    for (std::size_t i = 0; i < measured_.size(); ++i)
      if (use[i]) // a configuration the trial constants make impossible (or a failed point): a factor e^10 off
        r.push_back(predicted[i] > 0 && std::isfinite(predicted[i]) ? std::log(predicted[i] / measured_[i]) : 10);
    return r;
  };
  const auto squares = [](const std::vector<double>& r) {
    double sum = 0;
    for (const double e : r)
      sum += e * e;
    return sum;
  };
  std::vector<double> u(start.size());
  for (std::size_t k = 0; k < u.size(); ++k)
    u[k] = std::log(start[k]);
  if (auto fitted = log_gauss_newton(residuals, squares, u))
    u = *fitted;
  else
    u = log_coordinate_descent([&](const std::vector<double>& v) { return squares(residuals(v)); }, u);
  for (std::size_t k = 0; k < u.size(); ++k)
    start[k] = std::exp(u[k]);
  return start;
}

std::optional<std::vector<double>> ConstantFit::gauss_newton(std::vector<Parameter> params, int iterations)
{
  const std::size_t n = params.size(), rows = measured_.size();
  auto values         = [&] {
    std::vector<double> v;
    for (const auto& p : params)
      v.push_back(p.value);
    return v;
  };
  std::vector<double> t = predict(values());
  for (int iteration = 0; iteration < iterations; ++iteration) {
    // Forward differences, one parameter at a time.
    std::vector<double> step(n);
    std::vector<std::vector<double>> shifted(n);
    for (std::size_t k = 0; k < n; ++k) {
      step[k]   = std::max(0.01 * params[k].value, params[k].min_difference);
      auto v    = values();
      v[k]      = params[k].value + step[k];
      shifted[k] = predict(v);
    }
    // Normal equations of the linearised least squares on relative errors: (J^T J) x = -J^T r.
    std::vector<std::vector<double>> jtj(n, std::vector<double>(n, 0));
    std::vector<double> jtr(n, 0);
    for (std::size_t i = 0; i < rows; ++i) {
      const double r = (t[i] - measured_[i]) / measured_[i];
      std::vector<double> j(n);
      for (std::size_t k = 0; k < n; ++k)
        j[k] = (shifted[k][i] - t[i]) / step[k] / measured_[i];
      for (std::size_t a = 0; a < n; ++a) {
        for (std::size_t b = 0; b < n; ++b)
          jtj[a][b] += j[a] * j[b];
        jtr[a] += j[a] * r;
      }
    }
    // Cramer's rule: small systems, and a singular one is told by its determinant against the diagonal.
    const double det = determinant(jtj);
    double scale     = 1e-12;
    bool diagonal_ok = true;
    for (std::size_t k = 0; k < n; ++k) {
      scale *= jtj[k][k];
      diagonal_ok = diagonal_ok && jtj[k][k] > 0;
    }
    if (!(det > scale) || !diagonal_ok)
      return std::nullopt;
    bool settled = true;
    for (std::size_t k = 0; k < n; ++k) {
      auto ak = jtj;
      for (std::size_t r = 0; r < n; ++r)
        ak[r][k] = -jtr[r];
      double dx        = determinant(ak) / det;
      auto& p          = params[k];
      const double old = p.value;
      double next      = 0;
      if (p.bound == Parameter::Bound::POSITIVE) { // the step is halved until the value stays positive
        while (old + dx <= 0)
          dx /= 2;
        next = old + dx;
      } else { // the value is clamped at 0
        next = std::max(0.0, old + dx);
        dx   = next - old;
      }
      settled = settled && std::abs(dx) < 1e-9 * std::max(old, p.settle_scale);
      p.value = next;
    }
    t = predict(values());
    if (settled)
      break;
  }
  return values();
}

ConstantFit::BoundedFit ConstantFit::fit_bounded(const std::vector<Bounded>& params, const std::vector<bool>& use,
                                                 double f_scale, int starts,
                                                 const std::vector<std::vector<double>>& extra_starts)
{
  const std::size_t n = params.size();
  // Each constant moves in u: log(v) for a log-scale one, v itself otherwise; the bounds in u.
  auto to_u   = [&](std::size_t k, double v) { return params[k].log_scale ? std::log(v) : v; };
  auto from_u = [&](std::size_t k, double u) { return params[k].log_scale ? std::exp(u) : u; };
  std::vector<double> lo(n), hi(n);
  for (std::size_t k = 0; k < n; ++k) {
    lo[k] = to_u(k, params[k].lo);
    hi[k] = to_u(k, params[k].hi);
  }
  // The terms whose squares sum to the loss: sqrt of soft-L1 for the rows, the priors as they are.
  auto terms = [&](const std::vector<double>& u) {
    std::vector<double> v(n);
    for (std::size_t k = 0; k < n; ++k)
      v[k] = from_u(k, std::clamp(u[k], lo[k], hi[k]));
    const auto& predicted = predict(v);
    std::vector<double> r;
    for (std::size_t i = 0; i < measured_.size(); ++i) {
      if (!use[i])
        continue;
      const double p = predicted[i];
      const double z = p > 0 && std::isfinite(p) ? std::log(p / measured_[i]) : 10;
      const double rho = 2 * f_scale * f_scale * (std::sqrt(1 + (z / f_scale) * (z / f_scale)) - 1);
      r.push_back(z < 0 ? -std::sqrt(rho) : std::sqrt(rho));
    }
    for (std::size_t k = 0; k < n; ++k) {
      const auto& b = params[k];
      if (b.prior_weight <= 0)
        continue;
      r.push_back(b.log_scale ? b.prior_weight * std::log(v[k] / b.prior)
                              : b.prior_weight * (v[k] - b.prior) / (std::abs(b.prior) + b.prior_scale));
    }
    return r;
  };
  auto cost_of = [](const std::vector<double>& r) {
    double c = 0;
    for (const double x : r)
      c += x * x;
    return c;
  };
  auto levenberg_marquardt = [&](std::vector<double> u) {
    auto r      = terms(u);
    double cost = cost_of(r);
    double lambda = 1e-3;
    for (int iteration = 0; iteration < 200; ++iteration) {
      // Forward differences in u (backward at the upper bound).
      std::vector<std::vector<double>> jac(n);
      for (std::size_t k = 0; k < n; ++k) {
        double h    = 1e-4 * std::max(1.0, std::abs(u[k]));
        if (u[k] + h > hi[k])
          h = -h;
        auto shifted = u;
        shifted[k] += h;
        const auto rs = terms(shifted);
        jac[k].resize(r.size());
        for (std::size_t i = 0; i < r.size(); ++i)
          jac[k][i] = (rs[i] - r[i]) / h;
      }
      std::vector<std::vector<double>> jtj;
      std::vector<double> jtr; // -J^T r
      normal_equations(jac, r, jtj, jtr);
      bool improved = false;
      while (lambda < 1e12) {
        auto damped = jtj;
        for (std::size_t k = 0; k < n; ++k)
          damped[k][k] += lambda * std::max(jtj[k][k], 1e-12);
        std::vector<double> step;
        if (!solve(damped, jtr, step)) {
          lambda *= 10;
          continue;
        }
        // A trust region: no constant moves more than a factor e^0.5 (a log one) or a fifth of its range per step.
        // Gauss-Newton on the square root of the soft-L1 loss overshoots a large residual twofold, which could carry a
        // constant across the kink where another link starts to bind and into the wrong basin.
        double shrink = 1;
        for (std::size_t k = 0; k < n; ++k) {
          const double cap = params[k].log_scale ? 0.5 : 0.2 * (hi[k] - lo[k]);
          if (std::abs(step[k]) > cap)
            shrink = std::min(shrink, cap / std::abs(step[k]));
        }
        auto next = u;
        for (std::size_t k = 0; k < n; ++k)
          next[k] = std::clamp(u[k] + shrink * step[k], lo[k], hi[k]);
        const auto rn     = terms(next);
        const double cn   = cost_of(rn);
        if (cn < cost) {
          const bool settled = cost - cn < 1e-12 * std::max(1.0, cost);
          u = next, r = rn, cost = cn;
          lambda = std::max(lambda / 10, 1e-9);
          improved = !settled;
          break;
        }
        lambda *= 10;
      }
      if (!improved)
        break;
    }
    return std::make_pair(u, cost);
  };
  std::mt19937 random(1);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> best_u;
  double best_cost = std::numeric_limits<double>::infinity();
  const int drawn = std::max(1, starts);
  for (int s = 0; s < drawn + static_cast<int>(extra_starts.size()); ++s) {
    std::vector<double> u(n);
    for (std::size_t k = 0; k < n; ++k) {
      if (s >= drawn)
        u[k] = std::clamp(to_u(k, extra_starts[static_cast<std::size_t>(s - drawn)][k]), lo[k], hi[k]);
      else
        u[k] = s == 0 ? std::clamp(to_u(k, params[k].start), lo[k], hi[k]) : lo[k] + unit(random) * (hi[k] - lo[k]);
    }
    const auto [fit_u, fit_cost] = levenberg_marquardt(u);
    if (fit_cost < best_cost) {
      best_cost = fit_cost;
      best_u    = fit_u;
    }
  }
  BoundedFit out;
  out.cost = best_cost;
  for (std::size_t k = 0; k < n; ++k)
    out.values.push_back(from_u(k, std::clamp(best_u[k], lo[k], hi[k])));
  const auto& predicted = predict(out.values);
  double sum = 0;
  int rows   = 0;
  for (std::size_t i = 0; i < measured_.size(); ++i)
    if (use[i]) {
      const double z = predicted[i] > 0 && std::isfinite(predicted[i]) ? std::log(predicted[i] / measured_[i]) : 10;
      sum += z * z;
      ++rows;
    }
  out.rows_rms = rows > 0 ? std::sqrt(sum / rows) : 0;
  return out;
}

} // namespace ccsim::api
