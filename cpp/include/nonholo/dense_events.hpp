// The events of a run by a one-step method (DOP853), found on its dense output the way CVODE finds
// them on its interpolant: a sign change of g_i over a step (in the event's direction, if it has
// one) brackets a root, which the Illinois variant of regula falsi locates to CVODE's time
// tolerance 100 u (|t| + |h|), returning the end of the bracket past the root (as CVODE does, so
// that g has changed sign there). The earliest root comes first; the events whose sign changed by
// then are reported with it, and the search goes on from there to the step's end.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "nonholo/event_values.hpp"

namespace nonholo {

class DenseEventSearch {
 public:
  DenseEventSearch(EventValues& values, Workspace& ws, int n_states, double direction)
      : values_(values), ws_(ws), dir_(direction), g_(values.size()), g_end_(values.size()), g_root_(values.size()),
        y_root_(n_states) {}

  // The values at the state a step starts from: at the run's start, and again when the state was
  // moved in place between steps (a projection, a new frame).
  void start(double t, const double* y) {
    t_ = t;
    for (std::size_t i = 0; i < g_.size(); ++i) g_[i] = values_(i, t, y, ws_);
  }

  // The step from the last state to (t_end, y_end), with interpolant(t, y) filling y at t inside
  // it: on_root(t*, y*, which) for each root in time order (`which`: the events that crossed by
  // t*), until it returns true (a terminal event): then step() returns true and the run ends at t*.
  // Otherwise the values at the step's end are kept for the next step.
  template <class Interpolant, class OnRoot>
  bool step(double t_end, const double* y_end, Interpolant&& interpolant, OnRoot&& on_root) {
    const std::size_t m = g_.size();
    for (std::size_t i = 0; i < m; ++i) g_end_[i] = values_(i, t_end, y_end, ws_);
    const double tol = 100 * std::numeric_limits<double>::epsilon() * (std::abs(t_end) + std::abs(t_end - t_));
    for (;;) {
      double t_root = t_end;
      bool found = false;
      for (std::size_t i = 0; i < m; ++i) {
        if (!crosses(i, g_[i], g_end_[i])) continue;
        const double t_i = locate(i, t_, g_[i], t_end, g_end_[i], tol, interpolant);
        if (!found || dir_ * (t_i - t_root) < 0.0) t_root = t_i;
        found = true;
      }
      if (!found) break;
      const double* y_root = y_end;
      if (t_root != t_end) {
        interpolant(t_root, y_root_.data());
        y_root = y_root_.data();
      }
      which_.clear();
      for (std::size_t i = 0; i < m; ++i) {
        g_root_[i] = t_root == t_end ? g_end_[i] : values_(i, t_root, y_root, ws_);
        if (crosses(i, g_[i], g_root_[i])) which_.push_back(i);
      }
      if (which_.empty()) break;  // no event changed sign by t_root after all (round-off): none
      if (on_root(t_root, y_root, which_)) return true;
      t_ = t_root;
      g_.swap(g_root_);
      if (t_root == t_end) break;
    }
    t_ = t_end;
    g_.swap(g_end_);
    return false;
  }

 private:
  // A sign change of g_i from a to b (b may be 0), in the event's direction (in t) if it has one.
  bool crosses(std::size_t i, double a, double b) const {
    if (!((a < 0.0 && b >= 0.0) || (a > 0.0 && b <= 0.0))) return false;
    const int direction = values_.events()[i].direction;
    return direction == 0 || direction * dir_ * (b - a) > 0.0;
  }

  // The root of g_i bracketed by (ta, ga), (tb, gb): Illinois' regula falsi to `tol`; the end of
  // the final bracket on tb's side.
  template <class Interpolant>
  double locate(std::size_t i, double ta, double ga, double tb, double gb, double tol, Interpolant&& interpolant) {
    int kept = 0;  // which end the last two iterations kept: -1 ta, +1 tb
    for (int iteration = 0; iteration < 200 && gb != 0.0 && std::abs(tb - ta) > tol; ++iteration) {
      double tm = tb - gb * (tb - ta) / (gb - ga);
      // strictly inside by half the tolerance, and bisection when the secant stalls
      const double lo = std::min(ta, tb) + 0.5 * tol, hi = std::max(ta, tb) - 0.5 * tol;
      if (!(tm >= lo && tm <= hi) || iteration >= 100) tm = 0.5 * (ta + tb);
      interpolant(tm, y_root_.data());
      const double gm = values_(i, tm, y_root_.data(), ws_);
      if (gm == 0.0) return tm;
      if ((gm > 0.0) == (gb > 0.0)) {  // the root lies between ta and tm
        tb = tm;
        gb = gm;
        if (kept == -1) ga *= 0.5;
        kept = -1;
      } else {
        ta = tm;
        ga = gm;
        if (kept == 1) gb *= 0.5;
        kept = 1;
      }
    }
    return tb;
  }

  EventValues& values_;
  Workspace& ws_;
  double dir_;
  double t_ = 0.0;
  std::vector<double> g_, g_end_, g_root_;  // at the step's start (t_), end, and a root
  std::vector<double> y_root_;
  std::vector<std::size_t> which_;
};

}  // namespace nonholo
