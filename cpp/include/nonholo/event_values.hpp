// The value of an event g(t, y) (integrator.hpp, EventSpec) on a state of a run, for both ways a
// run finds its roots: CVODE's root finding (integrate/cvode_callbacks.cpp) and the run record's
// search on DOP853's dense output (run_record.hpp). A callback is called with (t, y); a tape is
// evaluated at [q, v, t, p] (v = q', the model's VelocityMap where its state holds another velocity),
// a tape of the no-slip dynamics at the state's own velocity (u = X_D w, a reduced model's u
// without its slip: the no-slip motion through the state) with that motion's acceleration and
// multipliers appended.
#pragma once

#include <algorithm>
#include <cmath>
#include <exception>
#include <sstream>
#include <vector>

#include "nonholo/errors.hpp"
#include "nonholo/integrator.hpp"
#include "nonholo/model.hpp"
#include "nonholo/point_geometry.hpp"

namespace nonholo {

class EventValues {
 public:
  EventValues(const Model& model, const ModelParts& parts, const std::vector<double>& params,
              const std::vector<EventSpec>& events)
      : model_(model), parts_(parts), params_(params), events_(events) {}

  const std::vector<EventSpec>& events() const { return events_; }
  std::size_t size() const { return events_.size(); }

  // g_i(t, y); ModelError when it is not finite (a NaN would make every sign test false and the
  // event silently never fire). A user's callback that throws: its exception goes on, and is
  // kept in callback_error (the run loops rethrow it as itself once the solver has returned).
  double operator()(std::size_t i, double t, const double* y, Workspace& ws) {
    const double g = value(events_[i], t, y, ws);
    if (!std::isfinite(g)) {
      std::ostringstream os;
      os << "event " << i << " is not finite (" << g << ") at t = " << t
         << ": an event must be defined along the whole run (check its expression, e.g. a log or a "
            "square root of a negative number, or a division by zero)";
      throw ModelError(os.str());
    }
    return g;
  }

  // g_i(t, y) as it is, NaN included: for the points a run samples off its solution
  // (EventStepBound::first_step), where an event need not be defined. Not for callbacks.
  double sample(std::size_t i, double t, const double* y, Workspace& ws) { return value(events_[i], t, y, ws); }

  std::exception_ptr callback_error;

 private:
  double value(const EventSpec& ev, double t, const double* y, Workspace& ws) {
    if (ev.callback) {
      try {
        return ev.callback(t, y);
      } catch (...) {
        callback_error = std::current_exception();
        throw;
      }
    }
    if (ev.state_function) return ev.state_function(t, y, params_.data());
    const MechanicalSystem& sys = model_.system();
    const int n = sys.n(), base = sys.n_inputs();
    inputs_.resize(ev.dynamics ? base + n + sys.k() : base);
    std::copy(y, y + n, inputs_.begin());
    if (ev.dynamics) {  // the no-slip motion through the state: its velocity u = X_D w, or v
      const double* u = parts_.frame_watch ? parts_.frame_watch->state_velocity(y, params_.data(), ws) : y + n;
      std::copy(u, u + n, inputs_.begin() + n);
    } else if (parts_.velocity_map) {  // q' = X_D w, u + s: not the state's velocity block
      parts_.velocity_map->velocity(t, y, params_.data(), inputs_.data() + n, ws);
    } else {
      std::copy(y + n, y + 2 * n, inputs_.begin() + n);
    }
    const double* v = inputs_.data() + n;
    inputs_[2 * n] = t;
    std::copy(params_.begin(), params_.begin() + sys.n_params(), inputs_.begin() + 2 * n + 1);
    if (ev.dynamics) {  // the no-slip motion through (q, v): its acceleration, then its multipliers
      PointGeometry at(sys, t, y, v, params_.data());
      const VecX<double> acceleration = at.nonholonomic_acceleration();
      const VecX<double> lambda = at.multipliers();
      std::copy(acceleration.data(), acceleration.data() + n, inputs_.begin() + base);
      std::copy(lambda.data(), lambda.data() + sys.k(), inputs_.begin() + base + n);
    }
    double g = 0.0;
    ev.tape->eval(inputs_.data(), &g, work_);
    return g;
  }

  const Model& model_;
  const ModelParts& parts_;
  const std::vector<double>& params_;
  const std::vector<EventSpec>& events_;
  std::vector<double> inputs_, work_;
};

}  // namespace nonholo
