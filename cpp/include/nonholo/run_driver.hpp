// The one run loop of integrate() (integrator.hpp), whichever method steps (stepper.hpp: CVODE's
// BDF and Adams, DOP853). After each step of its stepper the driver
//   1. finds the events: the stepper's own roots (CVODE), or a search on its interpolant
//      (dense_events.hpp); a terminal one ends the run at its root, with the samples up to it;
//   2. applies drift control (drift_control.hpp) where the stepper takes it, in place or by a
//      fresh start, unless the stepper's method control restarts it (Adams turned stiff) or hands
//      the run over (DOP853 turned stiff: "auto" goes on with BDF);
//   3. emits the samples of t_eval on the step (the stepper's interpolant), or the step's end,
//      and the step's dense output;
//   4. restarts the stepper if asked, else watches the frame (FrameWatcher): a re-split maps the
//      state after the outputs at the step's end are emitted in the old frame; a singular frame
//      ends the run;
//   5. bounds the next step by the events' time scale (event_step_bound.hpp), so that none crosses
//      zero and back within it;
//   6. checks the end, max_steps, a step size collapsed to round-off, max_wall_time and
//      cancellation (RunRecord::within_limits).
// The report of how the run ended is written here, once (RunRecord).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nonholo/dense_events.hpp"
#include "nonholo/drift_control.hpp"
#include "nonholo/event_step_bound.hpp"
#include "nonholo/event_values.hpp"
#include "nonholo/run_record.hpp"
#include "nonholo/stepper.hpp"

namespace nonholo {

class RunDriver {
 public:
  RunDriver(const Model& model, const std::vector<double>& params, const IntegrationOptions& opt, RunRecord& record,
            EventValues& events);

  // Runs `stepper` from (t, y) (y: the driver may move it before the stepper begins). `fresh`:
  // the run's start (its samples at t; drift control there). True when the stepper handed the
  // run over at (stepper.time(), stepper.state()); otherwise the run has ended and its end is
  // recorded (RunRecord::finish). The stepper's counters are added to the run's either way.
  bool run(Stepper& stepper, double t, double* y, bool fresh);
  // The longest first step from (t, y) that the events allow (run_driver.cpp, event_step_bound.hpp).
  double first_step_bound(double t, const double* y, EventStepBound& bound, Workspace& ws) const;

 private:
  // The frame watch at (t, y): false, with the report written, when the run must stop.
  bool watch_frame(Stepper& s, double t, double* y, bool at_start);
  void end(Stepper& s, double t, const double* y);
  // Why a run that used its max_steps at t will not end by raising them, or "" (run_driver.cpp).
  std::string creeping(double t) const;

  const Model& model_;
  const ModelParts parts_;
  const std::vector<double>& params_;
  const IntegrationOptions& opt_;
  RunRecord& record_;
  EventValues& events_;
  int n_;
  std::vector<UnitNormGroup> groups_;  // kept at norm 1 (with drift control)
  std::optional<DriftControl> drift_;  // project and a constraint set or unit-norm groups
  std::optional<DenseEventSearch> search_;  // events of a stepper that does not find roots
  std::optional<DenseEventSearch> step_search_;  // ... of a step past where an event is defined (events_undefined),
  std::vector<double> y_part_;                    // searched in kUndefinedStepParts parts (BDF stepped from 1.21 past
  static constexpr int kUndefinedStepParts = 16;  // 10 over an event's roots at 2 and 3.4, its sign the same at both)
  std::optional<EventStepBound> bound_;     // over the whole run, whichever stepper
  long steps_ = 0;                          // over the whole run (max_steps)
  double t_first_ = 0.0;                    // where the run started (its fresh start)
  double t_half_ = 0.0;                     // where it was after max_steps / 2 steps (creeping())
  double last_h_ = 0.0;                     // the last step taken, whichever stepper
  long projections_ = 0;                    // in-place drift projections not yet counted
  std::vector<double> y_stop_;   // the state at a terminal event's root
  std::vector<double> y_start_;  // the state a fresh run was given
};

}  // namespace nonholo
