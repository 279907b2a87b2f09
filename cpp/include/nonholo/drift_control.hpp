// Drift control by projection after a step (kDriftTol, integrator.hpp), for every method the run
// driver projects (run_driver.hpp: DOP853, and Adams, whose CVODE history moves with the state;
// BDF projects inside CVODE): the velocities projected G-orthogonally onto A v = b when the
// relative residual |A v - b| / (|A| |v| + |b|) exceeds kDriftTol rtol, and, for a stepper that
// takes them (Stepper::drift_unit_norm: DOP853), the unit-norm groups rescaled after every step (as
// BDF's projection does: they stay at norm 1 to round-off).
#pragma once

#include <cmath>
#include <vector>

#include "nonholo/integrator.hpp"
#include "nonholo/model.hpp"
#include "nonholo/unit_norm.hpp"

namespace nonholo {

class DriftControl {
 public:
  // What check() found: the constraint residual above its bound, a group off its unit norm; and
  // whether correct() rescales the groups (always, when asked for).
  struct Drift {
    bool constraints = false, unit_norm = false, rescale = false;
    // moved by more than the error control can see (the stepper evaluates its state again)
    bool visible() const { return constraints || unit_norm; }
  };

  DriftControl(const ConstraintSet* constraints, const std::vector<UnitNormGroup>& unit_norm, const std::vector<double>& p,
               int n_states)
      : constraints_(constraints), unit_norm_(unit_norm), p_(p), corr_(n_states) {}

  // Whether the state at (t, y) needs correcting at relative tolerance rtol; with `unit_norm`
  // correct() always rescales the groups, so a run with groups corrects after every step.
  Drift check(double t, const double* y, double rtol, Workspace& ws, bool unit_norm) const {
    Drift d;
    if (constraints_) {
      double residual = 0.0, scale = 1.0;
      constraints_->constraint_residual(t, y, p_.data(), ws, &residual, &scale);
      d.constraints = residual > kDriftTol * rtol * scale;
    }
    d.rescale = unit_norm && !unit_norm_.empty();
    for (const auto& g : unit_norm_) {
      if (!d.rescale) break;  // not the stepper's
      double s2 = 0.0;
      for (int i : g.position) s2 += y[i] * y[i];
      if (std::abs(std::sqrt(s2) - 1.0) > kDriftTol * rtol) d.unit_norm = true;
    }
    return d;
  }
  // y projected where check() found it off (the constraints), and the groups rescaled if asked.
  void correct(double t, double* y, const Drift& d, Workspace& ws) {
    const int n = static_cast<int>(corr_.size());
    if (d.constraints) {
      std::fill(corr_.begin(), corr_.end(), 0.0);
      constraints_->project(t, y, p_.data(), corr_.data(), nullptr, nullptr, ws);
      for (int i = 0; i < n; ++i) y[i] += corr_[i];
    }
    if (d.rescale) {
      std::fill(corr_.begin(), corr_.end(), 0.0);
      project_unit_norm(unit_norm_, y, corr_.data(), nullptr);
      for (int i = 0; i < n; ++i) y[i] += corr_[i];
    }
  }

 private:
  const ConstraintSet* constraints_;
  const std::vector<UnitNormGroup>& unit_norm_;
  const std::vector<double>& p_;
  std::vector<double> corr_;
};

}  // namespace nonholo
