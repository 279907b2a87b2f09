// An explicit Runge-Kutta integrator for non-stiff models: the Dormand-Prince 8(5,3) pair
// (DOP853, Hairer-Norsett-Wanner I, section II.10): order 8 with the combined 5th/3rd-order error
// estimate, step control fac = 0.9 err^(-1/8) in [1/3, 6] (no growth right after a rejection),
// Hairer's starting step, and the dense output of order 7 (three extra stages, computed only on
// the steps that contain an output time, or on every step for a dense solution).
//
// Against CVODE's Adams on the reduced models (benchmarks/reduced_rk.py) it takes 5-10x fewer
// steps at the same tolerance and 1.2-2x the right-hand sides, with a per-step cost outside the
// model of a few vector operations where Adams pays a few dozen (Nordsieck predictor, corrector,
// error test, order selection): faster whenever a right-hand side costs less than about two
// Adams steps' overhead. Events are found on the dense output (dense_events.hpp); drift control
// projects after accepted steps. A dense solution (SimulationOutput::dense) holds each step's interpolant
// as the derivatives at its end (Stepper::record_dense). No sensitivities.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nonholo/cost_constants.hpp"
#include "nonholo/model.hpp"
#include "nonholo/stepper.hpp"
#include "nonholo/unit_norm.hpp"

namespace nonholo {

// Method "auto" runs DOP853 with tolerances that tighten on long runs (Dop853Settings::tighten_after).
// A step's local error is bounded by the tolerance, but a conserved energy drifts by the sum of the steps' errors, which for DOP853 share a sign: ~ n tol after n
// steps: over t = 1e4 at rtol 1e-8 (DOP853 at a tenth of it) 1e-7 to 8e-7 relative on roller
// racers, and 1.2e-6 on issue 40's, above the target of 100 rtol. Tolerances times sqrt(N0 / n)
// after step N0 make the sum grow like N0^(7/16) n^(9/16) (a step's error ~ tol^(7/8) at the step its tolerance allows)
// for steps (n / N0)^(1/16) shorter, down to a tenth of the tolerances and rtol 1e-12 at most
// (kTightestFactor, kTightestRtol in explicit_rk.cpp). With N0 = 300 runs of up to 300 steps are
// as before, and over t = 1e4 at rtol 1e-8 (benchmarks/auto_accuracy.py) seven conservative runs
// drift 3.4-17x less (1.4e-9 to 5.6e-8 relative) for 1.16-1.33x the steps. A fixed scale of 0.03
// instead of 0.1 cut four racers' drifts 2-8x for 1.16x the steps of every run, short ones included.
constexpr long kAutoTightenSteps = 300;

// CVODE's Adams step outside the model in the nanoseconds of Model::rhs_cost_ns, and the ratio of
// a right-hand side to it below which DOP853 pays (cost_constants.hpp).
using cost::adams_step_ns, cost::kExplicitRkStepRatio;
inline bool explicit_rk_pays(const Model& model) {
  return !model.stiff() && model.cost().rhs_cost_ns() <= kExplicitRkStepRatio * adams_step_ns(model.n_states());
}

// How the DOP853 stepper runs beyond the run's options: method "dop853" with none of them; "auto" on a
// non-stiff model with all three.
struct Dop853Settings {
  double tolerance_scale = 1.0;  // rtol and atol times this (kAutoExplicitTolerance)
  // Stop at the end of the step where the run turns out stiff (Hairer's test, explicit_rk.cpp),
  // for method "auto" to go on with BDF from there.
  bool stop_when_stiff = false;
  // Tolerances that tighten with the run's length (0: fixed): after step n > tighten_after,
  // rtol and atol are multiplied by sqrt(tighten_after / n), bounded (kAutoTightenSteps).
  long tighten_after = 0;
};

// The stepper of method "dop853" of integrate() (integrator.hpp), and of the first part of method
// "auto" on non-stiff models, for the run driver (run_driver.hpp: samples, events on the dense
// output, drift control, the frame watch, limits and the report). Steps y' = model.rhs(t, y, p)
// towards tf in `direction` at the tolerances (weights atol_i + rtol max(|y_n,i|, |y_n+1,i|), RMS
// norm); after a state moved in place between steps (a projection, a new frame) K_1 = f(t, y) is
// evaluated again (a one-step method keeps no history). Failures (a non-finite right-hand side,
// the step collapsing, max_steps spent on rejected attempts) are reported with status -1 and the
// reason. With settings.stop_when_stiff it hands the run over (Stepper::hands_over) at the end of
// the step where Hairer's test finds the run stiff.
// check_dop853_supports throws InputError for what the explicit pair does not support
// (sensitivities, stiff models).
struct IntegrationOptions;
void check_dop853_supports(const Model& model, const IntegrationOptions& opt);
std::unique_ptr<Stepper> make_dop853(const Model& model, const std::vector<double>& params, double tf, double direction,
                                     const IntegrationOptions& opt, const Dop853Settings& settings = {});

}  // namespace nonholo
