// A method as the run driver (run_driver.hpp) sees it, in the spirit of SciPy's OdeSolver: a
// stepper takes one step at a time towards tf and interpolates within the step it took. Two
// implement it: CVODE's BDF and Adams in one-step mode (integrate/integration.hpp; the
// interpolant is CVodeGetDky's) and the explicit DOP853 pair (explicit_rk.cpp; its dense output of
// order 7). Everything around the steps is the driver's, written once: the samples at t_eval or at
// every step, events (on the stepper's interpolant unless it finds its roots itself, as CVODE
// does), drift control by projection, the frame watch, max_steps, max_wall_time, cancellation and
// the report of how the run ended. What differs between methods is asked of the stepper: how it
// takes a state moved between steps (in place, or only by a fresh start), and its own method
// control (Adams' switch to BDF, the Jacobian policy, DOP853's stiffness test), which it applies
// inside step().
#pragma once

#include <string>
#include <vector>

#include "nonholo/integrator.hpp"

namespace nonholo {

struct Workspace;

// What a step did.
struct StepResult {
  bool failed = false;  // no step: failure() says why; time() and state() are where the run stopped
  bool root = false;    // stopped at an event's root by the stepper's own root finding (roots())
  bool end = false;     // reached tf
  // stepped to time() (an accepted step), but an event is not defined there, so the stepper's own root
  // finding could not search the step: the run searches it on the interpolant (dense_events.hpp)
  bool events_undefined = false;
};

// Why a stepper could not step: CVODE's flag (or -1 for ours, 0 for a stop such as a singular
// frame), its name and the message, as RunRecord::failed writes them.
struct StepFailure {
  int flag = -1;
  std::string name;
  std::string message;
  // max_steps spent on what (RunRecord::too_much_work: "rejected attempts"), else empty
  std::string too_much_work_of;
};

// How a stepper takes its state moved in place between steps (drift control).
enum class StateMove {
  kInPlace,  // moved(): the stepper goes on from the moved state (DOP853; Adams with its history)
  kRestart,  // only by a fresh start (restart()), after the step's samples
  kNot,      // not now (too soon after a restart): the state stays
};

class Stepper {
 public:
  virtual ~Stepper() = default;

  // Starts at (t, y): the run's start, or where another stepper handed the run over.
  virtual void begin(double t, const double* y) = 0;
  // One step towards tf (rejected attempts are the stepper's).
  virtual StepResult step() = 0;
  virtual double time() const = 0;
  // The state at time(), which the driver may move in place (projection, a new frame).
  virtual double* state() = 0;
  // |h| of the last step taken.
  virtual double last_step() const = 0;
  // y(te) on the last step, te within it: its interpolant (the stepper's memory), or the state.
  virtual const double* at(double te) = 0;
  // Before the driver moves the state: whatever at() needs of the step as taken is kept.
  virtual void keep_interpolant() {}
  // The workspace its right-hand sides use (the frame a frame watch re-splits lives in it).
  virtual Workspace& workspace() = 0;

  // The next step is at most h_max long (the events' time scale: event_step_bound.hpp), until the
  // next call.
  virtual void bound_step(double h_max) = 0;
  // Events: true when the stepper finds the roots itself (StepResult::root; roots() flags them),
  // else the driver searches its interpolant (dense_events.hpp).
  virtual bool finds_roots() const { return false; }
  virtual const std::vector<int>& roots() { return no_roots_; }

  // Drift control by the driver (kDriftTol, integrator.hpp) after the stepper's steps, at this
  // relative tolerance; false for a method that keeps the constraints itself (BDF: CVODE's
  // projection) or must not be projected (Adams with sensitivities).
  virtual bool drift_control() const = 0;
  virtual double drift_rtol() const = 0;
  // Whether its drift control rescales the unit-norm groups too (after every step), or keeps the
  // velocities only (Adams, as documented for drift_control: "auto" runs BDF on such systems).
  virtual bool drift_unit_norm() const { return true; }
  virtual StateMove how_to_move() = 0;
  // The state was moved in place; `visible`: by more than the error control can see.
  virtual void moved(double t, bool visible) = 0;
  // A fresh start at (time(), state()): after a kRestart move, or when wants_restart().
  virtual void restart(double t) = 0;
  // The stepper's method control asks for a fresh start after this step (Adams turned stiff:
  // BDF from here), or, hands_over(), for another stepper from here (DOP853 turned stiff).
  virtual bool wants_restart() const { return false; }
  virtual bool hands_over() const { return false; }
  // A frame re-split mapped the state in place (FrameWatcher::resplit): false when the stepper
  // cannot follow it (forward sensitivities), and the run stops.
  // `at_start`: before begin().
  virtual bool resplit(double t, bool at_start) = 0;

  // The step as taken, into SimulationOutput::dense (options.dense_output).
  virtual void record_dense(DenseOutput& dense) { (void)dense; }
  // Its counters added to the run's.
  virtual void add_stats(SolverStats& stats) = 0;
  // For the report: what to do when max_steps is spent, a hint on max_wall_time, and the last
  // problem a right-hand side had ("; ..." or empty).
  virtual std::string too_much_work_advice() const = 0;
  virtual std::string limit_hint() const { return ""; }
  virtual std::string diagnosis() const = 0;
  // The flag name of a model that could not be evaluated between steps.
  virtual std::string failure_name() const = 0;
  virtual const StepFailure& failure() const { return failure_; }

 protected:
  StepFailure failure_;

 private:
  std::vector<int> no_roots_;
};

}  // namespace nonholo
