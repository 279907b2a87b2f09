// Integration of a Model with CVODE: BDF with the dense AD Jacobian for stiff models, Adams
// with fixed-point iteration for smooth ones (switching to BDF if the run turns out stiff),
// drift control of A v = b for constrained models (projection with BDF, as CVODE provides it;
// with Adams a projection of the state and its history when the residual exceeds rtol / 10), events by root finding, output at
// requested times by CVODE's interpolation, and failures reported as a status with the time reached.
#pragma once

#include <exception>

#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "nonholo/model.hpp"
#include "nonholo/tape/tape.hpp"
#include "nonholo/unit_norm.hpp"

namespace nonholo {

// Dop853: the explicit Runge-Kutta pair of explicit_rk.hpp (non-stiff models; no sensitivities or
// dense solution).
enum class Method { Auto, Bdf, Adams, Dop853 };

// A forward sensitivity (sensitivity.hpp): d y / d p[parameter], or d y / d y0[state].
struct SensitivitySpec {
  int parameter = -1;
  int state = -1;
  // d y(t0) / d p where the caller's initial state depends on the parameter (a state given in
  // another form and mapped into the model's, e.g. [q, q'] into Kane's speeds); empty: zero for a
  // parameter, the unit vector for an initial state.
  std::vector<double> initial;
};

// Drift control: a constrained state is projected back onto A v = b when the relative residual
// |A v - b| / (|A| |v| + |b|) exceeds kDriftTol rtol after a step (the run driver's DriftControl,
// drift_control.hpp: Adams with CVODE's history, see cpp/src/integrate/method_control.hpp; DOP853
// in place), and the unit-norm groups are rescaled after every step (BDF: by CVODE's projection).
constexpr double kDriftTol = 0.1;

struct IntegrationOptions {
  double rtol = 1e-8;
  std::vector<double> atol{1e-10};  // one value, or one per state
  Method method = Method::Auto;
  double max_step = 0.0;     // 0: unbounded
  double first_step = 0.0;   // 0: CVODE's estimate
  long max_steps = 500000;   // over the whole integration
  double max_wall_time = 0.0;  // seconds, 0: unbounded
  bool project = true;       // drift control on constrained models (projection after steps)
  bool dense_output = false; // keep CVODE's interpolant of every step (SimulationOutput::dense)
  // Keep about this many step ends, evenly thinned, beside the samples (SimulationOutput::trail_t):
  // for a check of the run that needs states t_eval does not store (a reduced model's validity).
  int step_trail = 0;
  // Model::check_state at (t0, y0) before the run; false when the caller has just done it on
  // the same state (the Python API: simulate and simulate_many check y0 first), as it costs a
  // full evaluation of the dynamics (9 us for the bicycle).
  bool check_initial_state = true;
  // CVODE's tuning knobs; 0 keeps CVODE's default.
  int max_order = 0;                  // CVodeSetMaxOrd
  long jacobian_frequency = 0;        // CVodeSetJacEvalFrequency (steps between Jacobians)
  long setup_frequency = 0;           // CVodeSetLSetupFrequency (steps between linear setups)
  int max_nonlinear_iterations = 0;   // CVodeSetMaxNonlinIters
  double nonlinear_convergence = 0;   // CVodeSetNonlinConvCoef
  // BDF with the refresh policy: a new Jacobian once the step has grown this factor past the
  // largest step taken when the kept one was taken (method_control.cpp); 0: off. A stick-slip
  // slide starting from zero slip sets it (stiffness ~ 1 / |slip|, falling by decades).
  double jacobian_step_growth = 0;
  // The Jacobian's cost the BDF refresh policy weighs (jacobian_policy.hpp): measured on the
  // model's first run (Model::measured_jacobian_cost), or the cost model's estimate, the same on
  // every machine (solver_options={"jacobian_costs": "estimated"}).
  bool measured_jacobian_costs = true;
  // Forward sensitivities with CVODES (none: plain integration).
  std::vector<SensitivitySpec> sensitivities;
  bool sensitivity_staggered = true;      // CV_STAGGERED, else CV_SIMULTANEOUS
  bool sensitivity_error_control = true;  // CVodeSetSensErrCon
  // Coordinates kept on unit spheres by projection after each step (BDF; see unit_norm.hpp).
  std::vector<UnitNormGroup> unit_norm;
};

// The one check of a run's options: throws InputError naming the option (rtol, atol, max_steps,
// solver_options[...]) when it is unusable; n_states < 0 checks what does not depend on the model
// (the binding's RunOptions when it is made), else also atol's and unit_norm's sizes.
void check_options(const IntegrationOptions& options, int n_states);

// An event g(t, y) = 0, found by CVODE's root finding. Either a tape with inputs
// [q, v, t, p] (evaluated in C++) or a callback (e.g. a Python function). A tape of the
// no-slip dynamics (`dynamics`) has the inputs [q, v, t, p, q'', lambda]: the acceleration and
// the multipliers of G q'' + c + dV = F + A^T lambda, A q'' = ... at (t, q, v) (contact-force
// margins, nonholo.system.margins).
struct EventSpec {
  std::shared_ptr<const Tape> tape;
  std::function<double(double, const double*)> callback;
  // g(t, y, p) computed in C++ without the GIL, with the run's parameters (a law's fold event,
  // law_slow_manifold.hpp): a batch may share it across threads, so it keeps no state of its own.
  std::function<double(double, const double*, const double*)> state_function;
  bool dynamics = false;
  int direction = 0;  // +1: g increasing only, -1: decreasing only, 0: both
  int terminal = 0;   // stop at the terminal-th occurrence; 0: never
  // A limit of the model that the run watches (where a normal load or a rolling speed reaches zero,
  // where a rolling body's surface stops holding), not the caller's event: it does not steer
  // method="auto" off DOP853 (whose root search on its dense output finds it).
  bool watch = false;
};

struct SolverStats {
  long n_steps = 0, n_rhs = 0, n_jac = 0, n_lin_setups = 0, n_err_test_fails = 0;
  long n_nonlin_iters = 0, n_nonlin_fails = 0, n_proj = 0, n_root_evals = 0;
  int last_order = 0;
  double last_step = 0.0;
  double cpu_time = 0.0;
};

// CVODE's interpolant on each step [t_end - h, t_end]: y(t) = sum_k D_k (t - t_end)^k / k!,
// D_k the k-th derivative at t_end (Nordsieck history, k <= the order used).
struct DenseOutput {
  std::vector<double> t_end, h;
  std::vector<int> order;
  std::vector<double> derivatives;  // per step, (order + 1) x n_states, k-major
};

struct SimulationOutput {
  int n_states = 0;
  std::vector<double> t;
  std::vector<double> y;  // time-major: y[i * n_states + j] is state j at t[i]
  int status = 0;         // 0: end reached, 1: terminal event, -1: failure
  std::string message;
  int flag = 0;           // CVODE's return flag of the last call (or ours, see flag_name)
  std::string flag_name;
  double t_last = 0.0;
  // The state at t_last (the last step's; where a failed run stopped, also between samples of
  // t_eval); empty for a run that failed before its first step.
  std::vector<double> y_last;
  SolverStats stats;
  std::vector<std::vector<double>> t_events;
  std::vector<std::vector<double>> y_events;  // per event, time-major like y
  std::vector<std::string> messages;          // captured from SUNDIALS
  DenseOutput dense;                          // filled when options.dense_output
  // With options.step_trail = K: between K and 2K step ends (fewer in a short run), every s-th
  // step's, s doubling whenever 2K are kept (RunRecord::step_end); time-major like y.
  std::vector<double> trail_t, trail_y;
  // With options.sensitivities (n_sens of them): per output time n_sens x n_states, time-major;
  // per event and occurrence dt*/dtheta (n_sens) and dy(t*)/dtheta (n_sens x n_states).
  int n_sens = 0;
  std::vector<double> sensitivities;
  std::vector<std::vector<double>> t_event_sensitivities, y_event_sensitivities;
  bool interrupted = false;
  // An exception of the caller's own event function (a Python callable: KeyboardInterrupt at
  // Ctrl-C): the run stops there, flag INTERRUPTED, and the binding rethrows it with the output so
  // far (its samples, events and statistics) instead of losing them.
  std::exception_ptr caller_error;
  // What ran: "bdf", "adams", or "adams->bdf at t=..." when "auto" found the run stiff and went
  // on with BDF from t_switch (NaN without a switch).
  std::string method;
  double t_switch = std::numeric_limits<double>::quiet_NaN();
  long n_restarts = 0;  // fresh CVODE starts after the first (the switch, a frame re-split)
  // Frames re-chosen during the run (FrameWatcher::frame_check): the times and the new descriptions
  // (solved coordinates). An output at time t is in the frame of the last switch strictly
  // before t (in the direction of integration), the model's own before the first.
  std::vector<double> frame_switch_t;
  std::vector<std::vector<int>> frame_switch_solved;
};

using InterruptCheck = std::function<bool()>;

// Integrates `model` from t0 to tf. `params` has model.n_params() entries. If `t_eval` is empty,
// every internal step is returned. Bad arguments raise InputError; a failure after the start
// is returned with status -1 and the trajectory up to the time reached.
SimulationOutput integrate(const Model& model, const std::vector<double>& params, double t0, double tf,
                           const std::vector<double>& y0, const std::vector<double>& t_eval,
                           const std::vector<EventSpec>& events, const IntegrationOptions& options,
                           const InterruptCheck& interrupted = {});

// The result of a run that threw before or outside CVODE's steps: status -1, no samples, the
// exception's message and time (SolverError's t, else t0).
SimulationOutput failed_output(const std::exception_ptr& error, double t0, int n_states);

// Integrates a batch in parallel threads (each run with a workspace and a CVODE instance of
// its own, taken from the model's and the thread's pools: integrate/solver_pool.hpp, SolverPool).
// y0s: n_runs x n_states, params: n_runs x n_params (time-major rows). Results are identical
// to serial calls of integrate; a run that throws is returned as failed_output and the others
// are kept. `threads` <= 0 uses the hardware concurrency.
std::vector<SimulationOutput> integrate_many(const Model& model, const std::vector<double>& params, double t0,
                                             double tf, const std::vector<double>& y0s, int n_runs,
                                             const std::vector<double>& t_eval, const std::vector<EventSpec>& events,
                                             const IntegrationOptions& options, int threads,
                                             const InterruptCheck& interrupted = {});

}  // namespace nonholo
