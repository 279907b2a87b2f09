// One run of integrate() (integrator.hpp): class Integration. Its parts are in this folder:
// integration.cpp (validation, set-up of a CVODE instance, the CVODE stepper), method_control.cpp
// (Adams' stiffness test, the switch to BDF, restarts, the Jacobian policy), run_driver.cpp (the
// one run loop), cvode_callbacks.cpp (what CVODE calls), solver_pool.cpp (CVODE instances reused
// across runs) and batch.cpp (integrate_many).
// The CVODE instance is a stepper (stepper.hpp) of the one run loop, run_driver.hpp, as the explicit
// Runge-Kutta pair of method "dop853" is (explicit_rk.cpp): the driver records samples, events,
// limits and the run's end through the RunRecord (run_record.hpp), applies drift control and
// watches the frame; this class steps CVODE (CV_ONE_STEP), interpolates (CVodeGetDky) and keeps
// its own method control (Adams' switch to BDF, the Jacobian policy, restarts).
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
#include "nonholo/stepper.hpp"
#include "nonholo/sensitivity.hpp"
#include "nonholo/sundials/handles.hpp"
#include "solver_pool.hpp"

namespace nonholo {
class RunDriver;
}

namespace nonholo::cvode {

using Clock = std::chrono::steady_clock;

class Integration final : public Stepper {
 public:
  Integration(const Model& model, const std::vector<double>& params, double t0, double tf, const std::vector<double>& y0,
              const std::vector<double>& t_eval, const std::vector<EventSpec>& events, const IntegrationOptions& opt,
              const InterruptCheck& interrupted)
      : model_(model), t0_(t0), tf_(tf), t_eval_(t_eval), opt_(opt), interrupted_(interrupted),
        n_(model.n_states()), record_(out_, n_, t0, tf, t_eval, events, opt, interrupted),
        problem_(model, params, events) {
    validate(params, y0, events);
    y0_ = y0;
    if (opt.method == Method::Dop853)
      check_dop853_supports(model, opt);
    else
      setup();
  }

  SimulationOutput run();

  // ---- the stepper (stepper.hpp) ----
  void begin(double t, const double* y) override;
  StepResult step() override;
  double time() const override { return t_; }
  double* state() override { return N_VGetArrayPointer(y_.get()); }
  double last_step() const override;
  const double* at(double te) override;
  Workspace& workspace() override { return *problem_.ws; }
  bool finds_roots() const override { return true; }
  const std::vector<int>& roots() override { return roots_; }
  // Adams' drift control (kDriftTol; not with sensitivities: theirs are those of the field): the
  // velocities onto A v = b, not the unit-norm groups. BDF projects inside CVODE.
  bool drift_control() const override { return watch_drift_; }
  bool drift_unit_norm() const override { return false; }
  double drift_rtol() const override { return opt_.rtol; }
  // In place with CVODE's Nordsieck array (moved()), else by a restart, at most every kMinRestartSteps steps.
  StateMove how_to_move() override;
  void moved(double t, bool visible) override;
  void restart(double t) override;
  void bound_step(double h_max) override;
  bool wants_restart() const override { return switch_to_bdf_; }
  bool resplit(double t, bool at_start) override;
  void record_dense(DenseOutput& dense) override;
  void add_stats(SolverStats& stats) override;
  std::string too_much_work_advice() const override;
  std::string limit_hint() const override;
  // "; last model error: ..." when a callback reported a problem (non-finite values, ...).
  std::string diagnosis() const override {
    if (!problem_.nonfinite.empty()) return "; " + problem_.nonfinite;
    return "";
  }
  std::string failure_name() const override { return "MODEL_ERROR"; }

 private:
  // run(): DOP853 then BDF for "auto" on a non-stiff model, else the CVODE method, through `driver`
  void run_with(RunDriver& driver, std::vector<double>& y);
  void validate(const std::vector<double>& params, const std::vector<double>& y0, const std::vector<EventSpec>& events);
  // The CVODE method of the run (begin_method_) and its vectors; none for method "auto" on a
  // non-stiff model without sensitivities or dense output (explicit_first_: DOP853,
  // and BDF only where it turns stiff).
  void setup();
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
  // Hairer's test on the last Adams step (kStiffCheckSteps): h |lambda| near its stability border,
  // or below it with steps held by a decaying mode the solution does not follow (kDecayChecks).
  enum class AdamsCheck { Neither, AtBorder, HeldByDecay };
  AdamsCheck adams_check(double t);
  // CVODE started afresh from (t, y_) with `method` (start()); the output continues from the same state.
  void restart(double t, Method method, const std::string& why);
  // The first step of an Adams run restarted at t (drift control), from the run being replaced:
  // 0 when that run cannot give one (CVODE then estimates it).
  double restart_step(double t);
  bool before_or_at(double a, double b) const { return dir_ > 0 ? a <= b : a >= b; }
  // The failure of a CVODE step, in failure_.
  void fail(int flag, double t);
  bool stepped_past_events(StepResult& r);
  // Adds this CVODE instance's counters to the run's (a switch from Adams to BDF has two).
  void collect_stats();
  // After a step: the policy's mode, as CVODE's Jacobian and linear-setup frequencies.
  void apply_jacobian_policy(double t);
  // Refresh every step, or reuse: for a stiff model with a cheap Jacobian
  // (JacobianPolicy::refresh_at_setups), a new Jacobian at each linear setup, every
  // kStiffSetupFrequency steps and when the step size changes; else CVODE's own frequencies.
  void set_jacobian_mode(bool every);

  const Model& model_;
  bool bounded_stop_ = false;  // the stop time is t + h_max of bound_step(), not tf
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
  Method begin_method_ = Method::Bdf;  // the method begin() starts
  double t_ = 0.0;                     // the time CVODE reached
  std::vector<int> roots_;             // the events of a root return (CVodeGetRootInfo)
  bool switch_to_bdf_ = false;         // "auto"'s Adams turned stiff on the last step
  double* history_ = nullptr;          // CVODE's Nordsieck z_0, while how_to_move() found it at y
  sun::MessageSink sink_;
  // Declaration order = reverse destruction order: context first, CVODE memory last.
  PoolUse pool_use_;
  SUNContext ctx_ = nullptr;
  sun::VectorPtr y_, yout_, atol_;
  std::unique_ptr<SensitivityRun> sens_;
  std::unique_ptr<JacobianPolicy> policy_;  // BDF runs without fixed frequencies
  long jacobians_seen_ = -1;                // the policy's run: Jacobians so far, the largest step
  double jacobian_step_ = 0.0;              // taken up to the last one, the largest so far, and a
  double largest_step_ = 0.0;               // refresh asked for by step growth (jacobian_step_growth)
  bool growth_refresh_ = false;
  bool may_switch_ = false;                 // "auto" running Adams: switch to BDF when stiff
  bool watch_drift_ = false;                // Adams with drift control (kDriftTol)
  std::vector<long> failure_steps_;         // step counts at recent fixed-point failures
  long last_failures_ = 0, last_nonfinite_ = 0;
  long held_checks_ = 0;   // Hairer's test for Adams: checks in a row held by stability,
  long decay_checks_ = 0;  // and held by stability or a decaying mode
  sun::VectorPtr stiff_scratch_[4];
  std::vector<double> corr_stiff_;
  long steps_since_restart_ = 0;
  std::vector<double> switch_sensitivities_;  // at a switch to BDF: the sensitivities Adams reached
  sun::VectorPtr restart_ydd_, restart_weights_;  // restart_step's scratch
  std::vector<double> y0_;
  bool explicit_first_ = false;
  SolverHandle solver_;
};

}  // namespace nonholo::cvode
