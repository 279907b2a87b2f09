// The constants of method control in a CVODE run (integration.hpp): when BDF refreshes its
// Jacobian (the step and setup costs the Jacobian policy weighs, jacobian_policy.hpp), Adams'
// drift control by projection and restart, and "auto"'s switch from Adams to BDF when a run turns
// out stiff. The code that applies them is in method_control.cpp.
#pragma once

#include "nonholo/cost_constants.hpp"

namespace nonholo::cvode {

// Fixed cost of one BDF step outside the model, and of a linear setup for n states (for a
// second-order model's halved Newton systems, n is the order of the matrix factored, the
// coordinates), in the nanoseconds of Model::rhs_cost_ns: cost_constants.hpp.
using cost::kStepNanoseconds, cost::setup_nanoseconds;
// The halved Newton systems from this many coordinates on; below, CVODE's full matrix, whose
// factors and solutions equal SUNDIALS' dense solver bit for bit (the small systems that are
// compared step by step with hand-written CVODE programs: benchmarks/friction_sleigh_cvode.cpp,
// cpp/tests/test_integrator_linear_solver.cpp), at a cost of a microsecond or less per setup.
constexpr int kSecondOrderMinCoordinates = 8;
// Adams' drift control (CVODE projects only with BDF; the run driver's, drift_control.hpp): after every step the relative residual
// |A v - b| / (|A| |v| + |b|) is checked (A and b only, the constraint tape); above kDriftTol rtol
// the state is projected onto the constraint set together with CVODE's Nordsieck array, whose
// Adams history (the past right-hand sides) stays as it is (Integration::how_to_move): no restart.
// Restarts (a fresh CVODE instance at order 1) dropped that history and cost the roller racer
// 4.3x the steps of an uncontrolled run at rtol 1e-10 (1,787 steps, 83 restarts); they remain
// only for a CVODE whose array is out of reach, at most every kMinRestartSteps steps (a run that
// drifts by about the tolerance every step would otherwise restart more than it steps). "auto"
// once went on with BDF when a restart came sooner; it no longer does: BDF's global error was
// 10-35x Adams' at equal tolerances (benchmarks/auto_accuracy.py). A stabilized right-hand side (Ascher-Chin-Reich,
// y' = f - gamma F (A v - b)) was measured and rejected: on the sleigh at rtol 1e-8 it leaves
// ~1e-8 of residual in the transient for any gamma h in [0.1, 1] (a step's own defect is ~1e-9)
// and its fixed mode -gamma holds Adams' steps (2-10x more steps), or, with gamma = alpha / h,
// sits at the stability limit of the high orders.
// kDriftTol (integrator.hpp) is shared with the explicit pair's drift control (explicit_rk.cpp).
constexpr long kMinRestartSteps = 20;
// "auto" starts non-stiff models with Adams and switches to BDF (like LSODA) when the fixed-point
// iteration fails to converge kStiffFailures times within kStiffWindow steps: its convergence
// needs h |lambda| below about 1, so a stiff mode |lambda| holds the step there and makes the
// iteration fail again each time CVODE tries to grow h (about every 10-20 steps); a non-stiff
// run fails rarely (at fast transients, a few times in a run).
constexpr long kStiffFailures = 5;
// "auto" on a non-stiff model without events, sensitivities or dense output runs DOP853 with the
// tolerances scaled by kAutoExplicitTolerance, and BDF from where Hairer's test finds the run stiff.
// DOP853's few long steps make a global error a few times that of Adams at equal tolerances
// (the sleigh over [0, 10]: 3-9x) where Adams' many short steps keep it nearer the local one;
// a tenth of the tolerance costs DOP853 about 1.3x its steps and puts its global error at or below
// Adams' and BDF's on every system of benchmarks/auto_accuracy.py, with tolerance proportionality.
// Adams (the previous default) loses its order at every drift restart, and BDF damps energy.
constexpr double kAutoExplicitTolerance = 0.1;
constexpr long kStiffWindow = 100;
// The fixed-point iteration need not fail where stability holds the step: with forward
// sensitivities (CVODES's staggered corrector) an Adams run of a damping 100 t^2 took 108,000
// steps at h |lambda| = 0.28-0.34 (order 7) without one failure, and BDF 561. So every
// kStiffCheckSteps steps Hairer's test estimates h |lambda| (adams_held_by_stability: two
// right-hand sides, about 5% of Adams' own); kStiffChecks checks in a row above kAdamsStiffFraction
// of the border of Adams-Moulton's stability interval at the step's order make the run stiff.
// The borders, -h lambda on the negative real axis (orders 1 and 2: A-stable, none; Hairer-Wanner
// II, table V.1.3 and beyond).
constexpr long kStiffCheckSteps = 20;
constexpr long kStiffChecks = 5;
constexpr double kAdamsStiffFraction = 0.3;
constexpr double kAdamsStabilityBorder[13] = {1e300, 1e300, 1e300, 6.0, 3.0, 1.84, 1.18, 0.77, 0.49, 0.31, 0.19, 0.12, 0.07};
// Steps held below that border. At tight tolerances CVODE's Adams settles at a fixed step far
// inside the interval: a damping of 1e4 (x'' = -2000 x - 1e4 x') at rtol 1e-10 stepped at
// h |lambda| = 0.064 (order 6, border 1.18) for 600,000 steps without a failure, at 1e-11 at 0.066
// (order 8), a step the solution (rate 0.2) needs 50,000 times less; with forward sensitivities,
// "auto" never switched and nh.fit of that model failed. A check counts as held when h |lambda| is
// above kDecayFloor, real (the quotient's real part rho at least kDecayRealShare of it: a fast
// oscillation's averages out over a period) and kRateRatio times the solution's own rate
// h |f| / |y| (in the error weights: a decaying mode the solution follows, as in a transient, is
// part of that rate). kDecayChecks such checks in a row (border checks count too) make the run
// stiff: 400 steps, a few periods of any oscillation above the floor, whose rho changes sign.
constexpr double kDecayFloor = 0.01, kDecayRealShare = 0.9, kRateRatio = 100.0;
constexpr long kDecayChecks = 20;

}  // namespace nonholo::cvode
