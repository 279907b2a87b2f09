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
// t_span (0, 1e4), none over (0, 1e6); a stick-slip phase started at rest slid too late). So the
// first step of a run with events is at most kFirstStepFraction of its span (first_step()); from
// there the 10-fold growth and the bound of three values take over. On an ordinary run the
// stepper's own first step is mostly shorter already; where it is not, the run pays about one step
// for each factor 10 it is cut by.
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

  // The longest first step of a run from t0 to tf (above).
  static constexpr double kFirstStepFraction = 1e-8;
  static double first_step(double t0, double tf) {
    const double floor = 1e5 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t0));
    return std::max(kFirstStepFraction * std::abs(tf - t0), floor);
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
