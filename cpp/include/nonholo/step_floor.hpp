// The step below which a run's steps have collapsed (run_driver.cpp, explicit_rk.cpp): 1000
// round-offs of the time the run has covered, and at least 16 spacings of the doubles at t, the
// finest step the time can hold. Of the time covered, not of t itself: a run that starts far from
// t = 0 (a Unix time, t0 = 1e12: a spacing of 1.2e-4, 1000 round-offs 0.22) took its steps of
// 0.1 for collapsed. A run from t = 0 is measured as before.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace nonholo {

inline double collapsed_step(double t, double t_start) {
  const double spacing = std::nextafter(std::abs(t), std::numeric_limits<double>::infinity()) - std::abs(t);
  return std::max(1e3 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t - t_start)), 16.0 * spacing);
}

}  // namespace nonholo
