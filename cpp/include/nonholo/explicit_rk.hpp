// An explicit Runge-Kutta integrator for non-stiff models: the Dormand-Prince 8(5,3) pair
// (DOP853, Hairer-Norsett-Wanner I, section II.10): order 8 with the combined 5th/3rd-order error
// estimate, step control fac = 0.9 err^(-1/8) in [1/3, 6] (no growth right after a rejection),
// Hairer's starting step, and the dense output of order 7 (three extra stages, computed only on
// the steps that contain an output time).
//
// Against CVODE's Adams on the reduced models (benchmarks/reduced_rk.py) it takes 5-10x fewer
// steps at the same tolerance and 1.2-2x the right-hand sides, with a per-step cost outside the
// model of a few vector operations where Adams pays a few dozen (Nordsieck predictor, corrector,
// error test, order selection): faster whenever a right-hand side costs less than about two
// Adams steps' overhead. No events, sensitivities, dense solution or drift control.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "nonholo/cost_constants.hpp"
#include "nonholo/model.hpp"
#include "nonholo/unit_norm.hpp"

namespace nonholo {

struct ExplicitRkOptions {
  double rtol = 1e-8;
  std::vector<double> atol{1e-10};  // one value, or one per state
  double max_step = 0.0;            // 0: unbounded
  double first_step = 0.0;          // 0: Hairer's estimate
  long max_steps = 500000;
  double max_wall_time = 0.0;       // seconds, 0: unbounded
  std::function<bool()> interrupted;
  // Drift control after each accepted step (kDriftTol, integrator.hpp): the velocities projected
  // G-orthogonally onto A v = b (Model::project) when the relative residual exceeds kDriftTol rtol,
  // and the unit-norm groups rescaled when | |q_g| - 1 | does; K_1 = f(t, y) is then evaluated again.
  bool project = false;
  std::vector<UnitNormGroup> unit_norm;
  // Stop at the end of the step where the run turns out stiff (Hairer's test, explicit_rk.cpp),
  // with `stiff` set and the state in `y_last`, for method "auto" to go on with BDF.
  bool stop_when_stiff = false;
  // Tolerances that tighten with the run's length (0: fixed): after step n > tighten_after,
  // rtol and atol are multiplied by sqrt(tighten_after / n), bounded (kAutoTightenSteps).
  long tighten_after = 0;
};

// Method "auto" runs DOP853 with tolerances that tighten on long runs (ExplicitRkOptions::tighten_after,
// run_dop853's argument). A step's local error is bounded by the tolerance, but a conserved
// energy drifts by the sum of the steps' errors, which for DOP853 share a sign: ~ n tol after n
// steps: over t = 1e4 at rtol 1e-8 (DOP853 at a tenth of it) 1e-7 to 8e-7 relative on roller
// racers, and 1.2e-6 on issue 40's, above the target of 100 rtol. Tolerances times sqrt(N0 / n)
// after step N0 make the sum grow like N0^(7/16) n^(9/16) (a step's error ~ tol^(7/8) at the step its tolerance allows)
// for steps (n / N0)^(1/16) shorter, down to a tenth of the tolerances and rtol 1e-12 at most
// (kTightestFactor, kTightestRtol in explicit_rk.cpp). With N0 = 300 runs of up to 300 steps are
// as before, and over t = 1e4 at rtol 1e-8 (benchmarks/auto_accuracy.py) seven conservative runs
// drift 3.4-17x less (1.4e-9 to 5.6e-8 relative) for 1.16-1.33x the steps. A fixed scale of 0.03
// instead of 0.1 cut four racers' drifts 2-8x for 1.16x the steps of every run, short ones included.
constexpr long kAutoTightenSteps = 300;

struct ExplicitRkOutput {
  std::vector<double> t, y;  // y time-major: one state per output time
  long n_steps = 0, n_rhs = 0, n_rejected = 0;
  int status = 0;  // 0: reached tf; -1: failed (message)
  double t_last = 0.0;
  bool interrupted = false;
  std::string message;
  std::string flag_name;  // the failure's kind: STEP_SIZE_COLLAPSED, TOO_MUCH_WORK, WALL_TIME_EXCEEDED
  // The frame watch of models in quasi-velocities (FrameWatcher::frame_check), as in the CVODE run: the
  // re-splits (time, solved coordinates), and whether the run stopped at a singular frame.
  std::vector<double> frame_switch_t;
  std::vector<std::vector<int>> frame_switch_solved;
  bool frame_singular = false;
  long n_projections = 0;
  bool stiff = false;           // stopped at t_last by the stiffness test (stop_when_stiff)
  std::vector<double> y_last;  // the state at t_last: the end, the handover, or where the run failed
};

// CVODE's Adams step outside the model in the nanoseconds of Model::rhs_cost_ns, and the ratio of
// a right-hand side to it below which DOP853 pays (cost_constants.hpp).
using cost::adams_step_ns, cost::kExplicitRkStepRatio;
inline bool explicit_rk_pays(const Model& model) {
  return !model.stiff() && model.cost().rhs_cost_ns() <= kExplicitRkStepRatio * adams_step_ns(model.n_states());
}

// Integrates y' = model.rhs(t, y, p) from t0 to tf (either direction) at the tolerances (weights
// atol_i + rtol max(|y_n,i|, |y_n+1,i|), RMS norm). Outputs at t_eval (sorted in the direction of
// integration, inside the span), or at every step when t_eval is empty. Failures (a non-finite
// right-hand side, the step collapsing, max_steps, max_wall_time) return status -1 with the reason.
// A model that watches its frame (the part FrameWatcher) is checked at the start and after every
// accepted step; a re-split maps the state and costs one right-hand side (a one-step method keeps
// no history), the outputs at the step's end are emitted before it, in the old frame.
ExplicitRkOutput integrate_dop853(const Model& model, const std::vector<double>& p, double t0, double tf,
                                  const std::vector<double>& y0, const std::vector<double>& t_eval,
                                  const ExplicitRkOptions& options);

// Method "dop853" of integrate() (integrator.hpp), and the first part of method "auto" on non-stiff
// models. check_dop853_supports throws InputError for what the explicit pair does not support
// (events, sensitivities, dense output, stiff models). run_dop853 runs integrate_dop853 with the
// run's options, the tolerances scaled by `tolerance_scale`, and fills `out` (prepared by the caller:
// state count, event lists) with its samples, counters, status and message; with `stop_when_stiff`
// it returns the state where the run turned stiff (out.t_last its time), empty otherwise.
struct EventSpec;
struct IntegrationOptions;
struct SimulationOutput;
void check_dop853_supports(const Model& model, const std::vector<EventSpec>& events, const IntegrationOptions& opt);
std::vector<double> run_dop853(const Model& model, const std::vector<double>& params, double t0, double tf,
                               const std::vector<double>& y0, const std::vector<double>& t_eval,
                               const IntegrationOptions& opt, const std::function<bool()>& interrupted,
                               SimulationOutput& out, double tolerance_scale = 1.0, bool stop_when_stiff = false,
                               long tighten_after = 0);

}  // namespace nonholo
