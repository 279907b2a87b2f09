// A bound on the next step from the events' own time scale. Events are found where g changes sign
// between the two ends of a step (CVODE's root finding, dense_events.hpp), so an event that crosses
// zero and back within one step is not seen. The error control sees only the state, which may not
// move at all while g does: a body at rest under a force that varies in time takes steps as long as
// it likes while the margin of its friction cone opens and closes.
//
// On a quadratic g(s) = g0 + g1 s + g2 s^2 / 2 the two roots of a double crossing satisfy
// s1 s2 = 2 g0 / g2, so the later one lies beyond sqrt(2 |g0| / |g2|): a step no longer than that
// crosses at most once. The bound takes g2 from g's values at the ends of the last three steps
// (twice their second divided difference), with a factor 1/2 for the error of that estimate, and
// only where the estimate stands out of the noise of g (its change beyond a straight line is more
// than 10 (rtol of g's scale + 1e-14)); at its root (|g| within that noise) an event keeps its last
// bound. A smooth
// event gives a bound of the order of its own time scale (sin(w t): 0.35 / w), a straight one
// (t - t1) none. Until an event has three values, the step grows at most 10-fold (CVODE lets its
// second step be 10^4 times its first).
//
// A terminal event that heads for its zero in its own direction bounds the next step also to the
// time its secant takes to reach zero and fall a tenth of g's noise past it: the step that crosses
// the zero ends close beyond it, whatever the model does past the event. A slide's stop event of a
// stick-slip run lies a few tolerances short of the kink where the kinetic force turns over; a step
// that jumped the event and the kink together ended back on the event's side (the slip held near zero
// by the turned force), and the stop was found 1.8e-7 s late, where the slip came back, for one end
// of t_span out of six (its steps all shifted).
//
// Nothing of the events is known before the first step, whose length the stepper takes from the
// state alone (CVODE's estimate, Hairer's for DOP853): where the state does not move (y'' = 0, a
// body at rest) that is a fair part of t_span, and a long t_span jumped whole windows of an event
// (a particle at rest with the event sin(20 t): 39 of its 63 zeros in [0, 10] found over
// t_span (0, 1e4), none over (0, 1e6); a stick-slip phase started at rest slid too late; a
// particle at x = 1000 moving at 1, 57 of 63: CVODE bounds its first step by 0.1 |y| / |y'|). So
// before the first step the events are sampled (first_step()) at kProbeSamples points of the
// longest first step the stepper could take (CVODE's bound: a tenth of the span, or of |y| / |y'|),
// the state moved along y'(t0); while one changes sign or turns there (its curvature over the step
// above a quarter of its range there; unequal spacings, as sin(20 t) at equal ones of 1.25 looks like
// a slow drift), or is not defined (the line leaves the event's domain where the solution need not:
// sqrt(1.5 - x) of x = sin t from x' = 1, which failed the run at t = 0), the step is cut 10-fold.
// From there the 10-fold growth and the bound of three values take over. A cap of 1e-8 of the span
// on every run with events found these too but cost about one step for each factor 10 it cut:
// the reduced model of a law, whose fold event is always on, took 18 steps
// where it takes 11; the samples cost kProbeSamples + 1 event values and one right-hand side.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "nonholo/event_values.hpp"

namespace nonholo {

class EventStepBound {
 public:
  EventStepBound(EventValues& values, double rtol) : values_(values), noise_(std::max(rtol, 1e-12)) {
    const std::size_t m = values.size();
    for (std::size_t i = 0; i < m; ++i)
      if (!values.events()[i].callback)  // a Python callback is the caller's
        history_.emplace_back(i, values.events()[i].terminal > 0, values.events()[i].direction);
  }

  bool empty() const { return history_.empty(); }

  // The longest first step from (t, y) with rates f, starting from h (the stepper's longest, above):
  // cut 10-fold while an event changes sign or is not smooth on its samples (above). n: the state's size.
  static constexpr int kProbeSamples = 8;
  static constexpr int kProbeCuts = 30;
  double first_step(double t, const double* y, const double* f, int n, double h, Workspace& ws) {
    const double floor = 1e5 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t));
    std::vector<double> z(static_cast<std::size_t>(n));
    double g[kProbeSamples + 1], tau[kProbeSamples + 1];
    for (int cut = 0; cut < kProbeCuts && std::abs(h) > floor; ++cut, h *= 0.1) {
      // samples at the fractions (j / K)^1.5 of the step: unequal spacings, so that no oscillation of
      // the event aliases to a smooth curve (sin(20 t) at a spacing of 1.25 looks like a slow drift)
      for (int j = 0; j <= kProbeSamples; ++j) tau[j] = h * std::pow(static_cast<double>(j) / kProbeSamples, 1.5);
      bool calm = true;
      for (const History& e : history_) {
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (int j = 0; j <= kProbeSamples; ++j) {
          for (int i = 0; i < n; ++i) z[static_cast<std::size_t>(i)] = y[i] + tau[j] * f[i];
          g[j] = j == 0 ? values_(e.index, t, y, ws) : values_.sample(e.index, t + tau[j], z.data(), ws);
          lo = std::min(lo, g[j]);
          hi = std::max(hi, g[j]);
        }
        const double noise = 10.0 * (noise_ * std::max(std::abs(lo), std::abs(hi)) + History::kRounding);
        bool crosses = false, turns = false;
        const double ref = g[0] != 0.0 ? g[0] : g[1];
        for (int j = 1; j <= kProbeSamples; ++j) {
          if (ref * g[j] < 0.0 && std::abs(g[j]) > noise) crosses = true;
          if (j == kProbeSamples) break;
          // the curvature by divided differences, over the whole step against the event's range there
          const double d1 = (g[j] - g[j - 1]) / (tau[j] - tau[j - 1]), d2 = (g[j + 1] - g[j]) / (tau[j + 1] - tau[j]);
          const double curvature = 2.0 * (d2 - d1) / (tau[j + 1] - tau[j - 1]);
          if (std::abs(curvature) * h * h / 8.0 > 0.25 * (hi - lo) + noise) turns = true;
        }
        if (!std::isfinite(hi - lo) || crosses || turns) {
          calm = false;
          break;
        }
      }
      if (calm) return h;
    }
    return std::max(std::abs(h), floor);
  }

  // The values at the run's start.
  void start(double t, const double* y, Workspace& ws) {
    for (History& e : history_) e.push(t, values_(e.index, t, y, ws));
  }

  // After a step of length h to (t, y): the longest next step (|h|) by which no event crosses
  // twice, infinity where none binds.
  double after_step(double t, const double* y, double h, Workspace& ws) {
    double bound = std::numeric_limits<double>::infinity();
    for (History& e : history_) {
      const double g = values_(e.index, t, y, ws);
      e.push(t, g);
      bound = std::min(bound, e.count < 3 ? 10.0 * h : e.update(noise_));
      if (e.terminal && e.count >= 2) bound = std::min(bound, e.to_zero(noise_));
    }
    // never below a step the run could still take (the driver stops a run whose steps collapse)
    const double floor = 1e5 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t));
    return std::max(bound, floor);
  }

 private:
  struct History {
    History(std::size_t i, bool stops, int falls) : index(i), terminal(stops), direction(falls) {}
    std::size_t index;
    bool terminal = false;  // a terminal event: its crossing ends the run (or the phase)
    int direction = 0;      // the sign of dg/dt at the crossings it reports (0: both)
    double t[3] = {0.0, 0.0, 0.0}, g[3] = {0.0, 0.0, 0.0};
    int count = 0;
    double scale = 0.0;  // the largest |g| of the run
    double last = std::numeric_limits<double>::infinity();  // the bound it gave last

    void push(double tn, double gn) {
      if (count > 0 && tn == t[2]) {  // the same time again (a root the stepper returned, then its step)
        g[2] = gn;
      } else {
        t[0] = t[1], g[0] = g[1];
        t[1] = t[2], g[1] = g[2];
        t[2] = tn, g[2] = gn;
        count = std::min(count + 1, 3);
      }
      scale = std::max(scale, std::abs(gn));
    }

    // an event that is zero to rounding throughout (a friction margin without load) is at its root
    static constexpr double kRounding = 1e-14;

    // The time the secant through the last two values takes to reach zero and a tenth of the
    // noise past it, where g heads for zero in the event's direction; infinity elsewhere.
    double to_zero(double rtol) const {
      const double dt = t[2] - t[1], dg = g[2] - g[1];
      if (!(g[1] * g[2] > 0.0) || !(std::abs(g[2]) < std::abs(g[1])) || dt == 0.0)
        return std::numeric_limits<double>::infinity();
      if (direction != 0 && (dg / dt > 0.0 ? 1 : -1) != direction) return std::numeric_limits<double>::infinity();
      const double noise = 10.0 * (rtol * scale + kRounding);
      return (std::abs(g[2]) + 0.1 * noise) * std::abs(dt / dg);
    }

    double update(double rtol) {
      const double noise = 10.0 * (rtol * scale + kRounding);
      if (!(std::abs(g[2]) > noise)) return last;  // at its root
      const double d1 = (g[1] - g[0]) / (t[1] - t[0]), d2 = (g[2] - g[1]) / (t[2] - t[1]);
      if (!(std::abs((d2 - d1) * (t[2] - t[1])) > noise)) {  // a straight line, within the noise
        last = std::numeric_limits<double>::infinity();
      } else {
        const double curvature = std::abs(2.0 * (d2 - d1) / (t[2] - t[0]));
        last = 0.5 * std::sqrt(2.0 * std::abs(g[2]) / curvature);
      }
      return last;
    }
  };

  EventValues& values_;
  double noise_;
  std::vector<History> history_;
};

}  // namespace nonholo
