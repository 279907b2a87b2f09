// One run of integrate() (integrator.hpp): class Integration. Its parts are in this folder:
// integration.cpp (validation, set-up of a CVODE instance, the step loop and the outputs),
// method_control.cpp (Adams' drift control and stiffness test, the switch to BDF, the Jacobian
// policy), frame_watch.cpp (re-splits of a frame during a run), cvode_callbacks.cpp (what CVODE
// calls), solver_pool.cpp (CVODE instances reused across runs) and batch.cpp (integrate_many).
// Method "dop853" runs the explicit Runge-Kutta stepper instead (explicit_rk.cpp). Both record their
// samples, events, limits and end through the run's RunRecord (run_record.hpp), and evaluate events
// through the Problem's EventValues (event_values.hpp).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>

#include "cvode_callbacks.hpp"
#include "method_control.hpp"
#include "nonholo/explicit_rk.hpp"
#include "nonholo/integrator.hpp"
#include "nonholo/jacobian_policy.hpp"
#include "nonholo/run_record.hpp"
#include "nonholo/sensitivity.hpp"
#include "nonholo/sundials/handles.hpp"
#include "solver_pool.hpp"

namespace nonholo::cvode {

using Clock = std::chrono::steady_clock;

class Integration {
 public:
  Integration(const Model& model, const std::vector<double>& params, double t0, double tf, const std::vector<double>& y0,
              const std::vector<double>& t_eval, const std::vector<EventSpec>& events, const IntegrationOptions& opt,
              const InterruptCheck& interrupted)
      : model_(model), t0_(t0), tf_(tf), t_eval_(t_eval), opt_(opt), interrupted_(interrupted),
        n_(model.n_states()), record_(out_, n_, t0, tf, t_eval, events, opt, interrupted),
        problem_(model, params, events) {
    validate(params, y0, events);
    if (opt.method == Method::Dop853) {
      check_dop853_supports(model, opt);
      y0_ = y0;
    } else {
      setup(y0);
    }
  }

  SimulationOutput run();

 private:
  void validate(const std::vector<double>& params, const std::vector<double>& y0, const std::vector<EventSpec>& events);
  void setup(const std::vector<double>& y0);
  // method "dop853": the run by the explicit Runge-Kutta stepper (explicit_rk.hpp, run_dop853).
  SimulationOutput run_explicit();
  // method "auto" on a non-stiff model (explicit_first_): DOP853 to the end, or, where it turns
  // stiff, BDF from there (started here). True when the CVODE loop is to go on from out_.t_last.
  bool run_explicit_until_stiff();
  // A CVODE instance with `method` from (t, y_): at t0_, and again at a switch from Adams to BDF.
  void start(double t, Method method, const double* y0_for_sensitivities);
  // An instance of this kind from the thread's pool, re-initialized at (t, y_), or a new one.
  SolverHandle acquire(double t, Method method, bool projection);
  // Every optional input of this run on the instance (CVODE's default where the run sets none).
  void configure(double t_start);
  // BDF's Newton systems in half the states (sundials/second_order_lu.hpp): dense second-order
  // models from kSecondOrderMinCoordinates coordinates on.
  bool halved_newton() const {
    return model_.second_order() && problem_.parts.sparse_jacobian == nullptr && n_ / 2 >= kSecondOrderMinCoordinates;
  }
  void* mem() const { return solver_->mem.get(); }
  // Auto's stiffness test after an Adams step (see kStiff*): true when the run should go on with BDF.
  bool adams_is_stiff(double t);
  // Hairer's test on the last Adams step (kStiffCheckSteps): h |lambda| near its stability border.
  bool adams_held_by_stability(double t);
  // Adams' drift control after a step (kDriftTol): true when the residual is above the bound.
  bool drifted(double t, const double* y);
  // Projects y_ onto the constraint set (G-orthogonally, velocities only).
  void project_state(double t);
  // Adams' drift control without a restart: y_ projected and CVODE's Nordsieck array moved with
  // it (its first column, the solution; the derivative history is kept). False, with nothing
  // changed, when that column is out of reach (then a restart projects).
  bool project_adams_history(double t);
  // CVODE started afresh from (t, y_) with `method` (start()); the output continues from the same state.
  void restart(double t, Method method, const std::string& why);
  // The frame watch after a step (FrameWatcher::frame_check): false when the run must stop (fail()
  // has been called). A re-split maps y_ to the new frame and restarts CVODE there; outputs up
  // to t are emitted before, in the old frame.
  bool watch_frame(double t, bool at_start);
  // The first step of an Adams run restarted at t (drift control), from the run being replaced:
  // 0 when that run cannot give one (CVODE then estimates it).
  double restart_step(double t);
  void record(double t, const double* y) { record_.record(t, y); }
  bool before_or_at(double a, double b) const { return dir_ > 0 ? a <= b : a >= b; }
  // The samples of t_eval up to t: y at t itself, CVODE's interpolant before.
  void emit_t_eval_up_to(double t, const double* y);
  void fail(int flag, double t);
  void record_dense_step();
  // "; last model error: ..." when a callback reported a problem (non-finite values, ...).
  std::string diagnosis() const {
    if (!problem_.nonfinite.empty()) return "; " + problem_.nonfinite;
    return "";
  }
  void collect_stats();
  // After a step: the policy's mode, as CVODE's Jacobian and linear-setup frequencies.
  void apply_jacobian_policy(double t);
  // Refresh every step, or reuse: for a stiff model with a cheap Jacobian
  // (JacobianPolicy::refresh_at_setups), a new Jacobian at each linear setup, every
  // kStiffSetupFrequency steps and when the step size changes; else CVODE's own frequencies.
  void set_jacobian_mode(bool every);

  const Model& model_;
  double t0_, tf_;
  const std::vector<double>& t_eval_;
  const IntegrationOptions& opt_;
  const InterruptCheck& interrupted_;
  int n_;
  double dir_ = 1.0;
  SimulationOutput out_;
  RunRecord record_;  // samples, events, limits and the report, in out_
  Problem problem_;
  Method method_ = Method::Bdf;
  sun::MessageSink sink_;
  // Declaration order = reverse destruction order: context first, CVODE memory last.
  PoolUse pool_use_;
  SUNContext ctx_ = nullptr;
  sun::VectorPtr y_, yout_, atol_;
  std::unique_ptr<SensitivityRun> sens_;
  std::unique_ptr<JacobianPolicy> policy_;  // BDF runs without fixed frequencies
  bool may_switch_ = false;                 // "auto" running Adams: switch to BDF when stiff
  bool watch_drift_ = false;                // Adams with drift control (kDriftTol)
  std::vector<long> failure_steps_;         // step counts at recent fixed-point failures
  long last_failures_ = 0, last_nonfinite_ = 0;
  long held_checks_ = 0;  // Hairer's test for Adams: checks in a row held by stability
  sun::VectorPtr stiff_scratch_[4];
  std::vector<double> corr_stiff_;
  long steps_since_restart_ = 0;
  long history_projections_ = 0;  // project_adams_history's, counted in stats n_proj
  std::vector<double> corr_;
  std::vector<double> resplit_state_;  // the state mapped to a new frame (watch_frame)
  std::vector<double> switch_sensitivities_;  // at a switch to BDF: the sensitivities Adams reached
  sun::VectorPtr restart_ydd_, restart_weights_;  // restart_step's scratch
  std::vector<double> y0_;  // methods "dop853" and "auto" with explicit_first_
  bool explicit_first_ = false;
  SolverHandle solver_;
};

}  // namespace nonholo::cvode
