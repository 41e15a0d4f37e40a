// The fitting engine; see ConstantFit.hpp.
#include "api/calibration/ConstantFit.hpp"

#include <algorithm>
#include <cmath>

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
  auto loss = [&](const std::vector<double>& values) {
    const auto& predicted = predict(values);
    double sum            = 0;
    for (std::size_t i = 0; i < measured_.size(); ++i) {
      if (!use[i])
        continue;
      // A configuration the trial constants make impossible (or a failed point) is as bad as a factor e^10 off.
      const double e = predicted[i] > 0 && std::isfinite(predicted[i]) ? std::log(predicted[i] / measured_[i]) : 10;
      sum += e * e;
    }
    return sum;
  };
  constexpr double kTolerance = 0.002; // in log space: 0.2 %
  const double golden         = (std::sqrt(5.0) - 1) / 2;
  for (int sweep = 0; sweep < 4; ++sweep) {
    double moved = 0;
    for (std::size_t c = 0; c < start.size(); ++c) {
      auto at = [&](double log_value) {
        auto v = start;
        v[c]   = std::exp(log_value);
        return loss(v);
      };
      double lo = std::log(start[c] / 2), hi = std::log(start[c] * 2);
      double a = hi - golden * (hi - lo), b = lo + golden * (hi - lo);
      double fa = at(a), fb = at(b);
      while (hi - lo > kTolerance) {
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
      const double best = std::exp(fa <= fb ? a : b);
      moved             = std::max(moved, std::abs(std::log(best / start[c])));
      start[c]          = best;
    }
    if (start.size() == 1 || moved <= kTolerance)
      break;
  }
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

} // namespace ccsim::api
