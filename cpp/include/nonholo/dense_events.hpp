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
#include <string>
#include <utility>
#include <vector>

#include "nonholo/event_values.hpp"

namespace nonholo {

// An event not defined at a step's end (a square root of a negative number past some time): the run
// fails at t_ok, the last time inside the step where every event is defined, with the state y_ok
// there (the step's samples and roots up to it kept).
struct EventUndefined : ModelError {
  EventUndefined(const std::string& what, double t_ok, std::vector<double> y_ok)
      : ModelError(what), t_ok(t_ok), y_ok(std::move(y_ok)) {}
  double t_ok;
  std::vector<double> y_ok;
};

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
  //
  // An event whose sign is the same at both ends may still cross zero and back inside the step (the
  // steps of an explicit method are long: an outside probe's sqrt(1.0001 - y^2) - 0.05 with y = sin t
  // is below zero on (1.5218, 1.6198), and DOP853 stepped from 1.477 to 1.873 over it, reporting
  // neither crossing). Where its slope at the step's start heads for zero and at the end leaves it
  // (a minimum of |g| inside), the step is split where the interpolant's g crosses (dip()), and each
  // part searched as a step of its own.
  //
  // Where an event is not defined at the step's end, the step is searched up to the last time it
  // is (undefined_end()): DOP853 stepped from 0.43 to 1.04 over sqrt(1 - x) - 0.5 with x = t, and
  // the run failed at 1.04 without the root at 0.75 or the samples before 1 that CVODE's kept.
  template <class Interpolant, class OnRoot>
  bool step(double t_end, const double* y_end, Interpolant&& interpolant, OnRoot&& on_root) {
    try {
      for (std::size_t i = 0; i < g_.size(); ++i) g_end_[i] = values_(i, t_end, y_end, ws_);
    } catch (const ModelError& e) {
      return undefined_end(t_end, interpolant, on_root, e.what());
    }
    return search(t_end, y_end, interpolant, on_root);
  }

 private:
  // The step from t_ to t_end searched for roots, g_end_ the values at its end.
  template <class Interpolant, class OnRoot>
  bool search(double t_end, const double* y_end, Interpolant&& interpolant, OnRoot&& on_root) {
    const std::size_t m = g_.size();
    for (double t_split; dip(t_end, interpolant, t_split);) {
      y_split_.resize(y_root_.size());
      interpolant(t_split, y_split_.data());
      const std::vector<double> g_at_end = g_end_;
      for (std::size_t i = 0; i < m; ++i) g_end_[i] = values_(i, t_split, y_split_.data(), ws_);
      if (part(t_split, y_split_.data(), interpolant, on_root)) return true;
      g_end_ = g_at_end;
    }
    return part(t_end, y_end, interpolant, on_root);
  }

  // The last time t_ok in (t_, t_end) where every event is defined, by bisection on the
  // interpolant; the step searched up to it (a terminal root before it ends the run as usual), then
  // EventUndefined at t_ok, with the error at the first time found undefined.
  template <class Interpolant, class OnRoot>
  bool undefined_end(double t_end, Interpolant&& interpolant, OnRoot&& on_root, std::string why) {
    double a = t_, b = t_end;  // all defined at a, not at b
    y_probe_.resize(y_root_.size());
    for (int k = 0; k < 200 && std::abs(b - a) > 4 * std::numeric_limits<double>::epsilon() * std::abs(b); ++k) {
      const double mid = 0.5 * (a + b);
      interpolant(mid, y_probe_.data());
      try {
        for (std::size_t i = 0; i < g_.size(); ++i) values_(i, mid, y_probe_.data(), ws_);
        a = mid;
      } catch (const ModelError& e) {
        b = mid;
        why = e.what();
      }
    }
    std::vector<double> y_ok(y_root_.size());
    interpolant(a, y_ok.data());
    if (a != t_) {
      for (std::size_t i = 0; i < g_.size(); ++i) g_end_[i] = values_(i, a, y_ok.data(), ws_);
      if (search(a, y_ok.data(), interpolant, on_root)) return true;
    }
    throw EventUndefined(why, a, std::move(y_ok));
  }

  // The search of the step's part from t_ to t_end (g_end_ the values there), as step() describes.
  template <class Interpolant, class OnRoot>
  bool part(double t_end, const double* y_end, Interpolant&& interpolant, OnRoot&& on_root) {
    const std::size_t m = g_.size();
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

  // The earliest time in (t_, t_end) where an event of the same sign at both ends (g_, g_end_) has
  // crossed zero on the interpolant, found by a golden-section search for the minimum of |g|
  // where the slopes at the ends (differences over kSlope of the step) say that |g| falls from the
  // start and rises to the end; false where no event does.
  template <class Interpolant>
  bool dip(double t_end, Interpolant&& interpolant, double& t_split) {
    const double span = t_end - t_;
    if (!(std::abs(span) > 0.0)) return false;
    bool found = false;
    y_probe_.resize(y_root_.size());
    auto g_at = [&](std::size_t i, double t) {
      interpolant(t, y_probe_.data());
      return values_(i, t, y_probe_.data(), ws_);
    };
    for (std::size_t i = 0; i < g_.size(); ++i) {
      const double s = g_[i] > 0.0 ? 1.0 : g_[i] < 0.0 ? -1.0 : 0.0;
      if (s == 0.0 || !(s * g_end_[i] > 0.0)) continue;
      const double d = kSlope * span;
      const bool falls = s * (g_at(i, t_ + d) - g_[i]) < 0.0, rises = s * (g_end_[i] - g_at(i, t_end - d)) > 0.0;
      if (!falls || !rises) continue;
      double a = t_, b = t_end;  // golden section on s g, stopped where it is no longer positive
      double c = b - kGolden * (b - a), e = a + kGolden * (b - a);
      double gc = s * g_at(i, c), ge = s * g_at(i, e);
      for (int k = 0; k < kGoldenSteps && gc > 0.0 && ge > 0.0; ++k) {
        if (gc < ge) {
          b = e, e = c, ge = gc;
          c = b - kGolden * (b - a);
          gc = s * g_at(i, c);
        } else {
          a = c, c = e, gc = ge;
          e = a + kGolden * (b - a);
          ge = s * g_at(i, e);
        }
      }
      const double t_cross = gc <= 0.0 ? c : ge <= 0.0 ? e : std::numeric_limits<double>::quiet_NaN();
      if (std::isfinite(t_cross) && (!found || (t_cross - t_split) * span < 0.0)) {
        t_split = t_cross;
        found = true;
      }
    }
    return found;
  }

  static constexpr double kSlope = 1e-6, kGolden = 0.6180339887498949;
  static constexpr int kGoldenSteps = 60;

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
  std::vector<double> y_root_, y_split_, y_probe_;
  std::vector<std::size_t> which_;
};

}  // namespace nonholo
