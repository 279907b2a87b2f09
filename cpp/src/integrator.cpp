#include "nonholo/integrator.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <exception>
#include <sstream>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <cvodes/cvodes.h>
#include <cvodes/cvodes_proj.h>
#include <nvector/nvector_serial.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "nonholo/errors.hpp"
#include "nonholo/explicit_rk.hpp"
#include "nonholo/format.hpp"
#include "nonholo/jacobian_policy.hpp"
#include "nonholo/sensitivity.hpp"
#include "nonholo/sundials/compat.hpp"
#include "nonholo/sundials/dense_lu.hpp"
#include "nonholo/sundials/handles.hpp"
#include "nonholo/sundials/serial_ops.hpp"

namespace nonholo {

// CVODE's defaults (cvodes_ls.c, cvodes.c): steps between Jacobians and between linear setups.
constexpr long kCvodeJacobianFrequency = 51;
constexpr long kCvodeSetupFrequency = 20;
// Fixed cost of one BDF step outside the model (CVODE's vector operations and error test, the
// Newton iteration's solves, the integration loop), in the nanoseconds of Model::rhs_cost_ns:
// benchmarks/friction_sleigh_cvode.cpp (6 states, a hand-written model costing ~0.05 us an
// evaluation) takes 2.9 us a step with a Jacobian and a factorization on every step, of which
// ~0.9 us are the linear-solver setup.
constexpr double kStepNanoseconds = 2000.0;
// A linear setup of the dense solver for n states (CVODE's zeroing, copy and scaling of the
// matrix, the LU without pivot search cost): perf on the sleigh, 0.7 us at n = 6. Both constants
// were fitted with SUNDIALS' dense solver and serial vectors (unoptimized in Debian's 6.4.1) and
// are kept so that the policy chooses as before; with nonholo's own (dense_lu.hpp,
// serial_ops.hpp) a step's fixed cost is about half and a setup about a quarter of these.
double setup_nanoseconds(double n) { return 500.0 + n * n * n / 3 + 3 * n * n; }
// Adams' drift control (CVODE projects only with BDF): after every step the relative residual
// |A v - b| / (|A| |v| + |b|) is checked (A and b only, the constraint tape); above kDriftTol rtol
// the state is projected onto the constraint set and Adams restarts there (a fresh CVODE
// instance), or, when the start or the previous restart was fewer than kMinRestartSteps steps before (the run
// drifts by about the tolerance every step: restarting would cost more than it saves), "auto"
// goes on with BDF and CVODE's projection, and method "adams" waits until kMinRestartSteps
// steps have passed. A stabilized right-hand side (Ascher-Chin-Reich,
// y' = f - gamma F (A v - b)) was measured and rejected: on the sleigh at rtol 1e-8 it leaves
// ~1e-8 of residual in the transient for any gamma h in [0.1, 1] (a step's own defect is ~1e-9)
// and its fixed mode -gamma holds Adams' steps (2-10x more steps), or, with gamma = alpha / h,
// sits at the stability limit of the high orders.
constexpr double kDriftTol = 0.1;
constexpr long kMinRestartSteps = 20;
// "auto" starts non-stiff models with Adams and switches to BDF (like LSODA) when the fixed-point
// iteration fails to converge kStiffFailures times within kStiffWindow steps: its convergence
// needs h |lambda| below about 1, so a stiff mode |lambda| holds the step there and makes the
// iteration fail again each time CVODE tries to grow h (about every 10-20 steps); a non-stiff
// run fails rarely (at fast transients, a few times in a run).
constexpr long kStiffFailures = 5;
constexpr long kStiffWindow = 100;

namespace {

using Clock = std::chrono::steady_clock;

// Everything a CVODE callback needs; exceptions never cross into CVODE: they are stored here
// and the callback returns -1.
struct Problem {
  const Model& model;
  const std::vector<double>& params;
  const std::vector<EventSpec>& events;
  WorkspaceLease ws;
  std::vector<double> event_inputs;
  std::vector<double> event_work;
  std::exception_ptr error;
  std::exception_ptr callback_error;  // raised by a user's event callback: rethrown as itself
  std::string nonfinite;  // first non-finite right-hand side, for the failure message
  long n_nonfinite = 0;   // non-finite right-hand sides so far
  void* cvode_mem = nullptr;
  N_Vector weights = nullptr;  // CVODE's error weights, for the projection
  SensitivityRun* sensitivity = nullptr;  // forward sensitivities, when requested
  std::vector<double> jacobian;                // the last Jacobian (BDF), column-major
  bool project_velocities = false;             // onto A v = b (drift control)
  const std::vector<UnitNormGroup>* unit_norm = nullptr;  // then positions onto |q_g| = 1

  Problem(const Model& m, const std::vector<double>& p, const std::vector<EventSpec>& e)
      : model(m), params(p), events(e), ws(m.borrow_workspace()) {}

  double event_value(const EventSpec& ev, double t, const double* y) {
    if (ev.callback) {
      try {
        return ev.callback(t, y);
      } catch (...) {
        callback_error = std::current_exception();
        throw;
      }
    }
    const MechanicalSystem& sys = model.system();
    const int n = sys.n();
    event_inputs.resize(sys.n_inputs());
    const double* v = model.event_velocity(t, y, params.data(), *ws);  // u = X_D w in a frame
    std::copy(y, y + n, event_inputs.begin());
    std::copy(v, v + n, event_inputs.begin() + n);
    event_inputs[2 * n] = t;
    std::copy(params.begin(), params.begin() + sys.n_params(), event_inputs.begin() + 2 * n + 1);
    double g = 0.0;
    ev.tape->eval(event_inputs.data(), &g, event_work);
    return g;
  }
};

int rhs_callback(sun::real t, N_Vector y, N_Vector ydot, void* data) {
  auto* P = static_cast<Problem*>(data);
  try {
    P->model.rhs(t, N_VGetArrayPointer(y), P->params.data(), N_VGetArrayPointer(ydot), *P->ws);
    const double* f = N_VGetArrayPointer(ydot);
    for (int i = 0; i < P->model.n_states(); ++i) {
      if (!std::isfinite(f[i])) {
        ++P->n_nonfinite;
        if (P->nonfinite.empty()) {
          std::ostringstream os;
          os << "the right-hand side is not finite (component " << i << ") at t = " << t;
          P->nonfinite = os.str();
        }
        return 1;  // recoverable: CVODE retries with a smaller step
      }
    }
    return 0;
  } catch (...) {
    P->error = std::current_exception();
    return -1;
  }
}

// CVODE's linear system A = I - gamma J (CVLS's own linear-system function does the same with a
// saved copy of J in a second SUNMatrix, zeroing A first): J is refreshed into the problem's
// storage when CVODE asks for it (jok false; CVODE counts it through jcur), then A is formed in
// one pass and factored by the linear solver's setup (dense_lu.hpp).
int linsys_callback(sun::real t, N_Vector y, N_Vector, SUNMatrix A, sunbooleantype jok, sunbooleantype* jcur,
                    sun::real gamma, void* data, N_Vector, N_Vector, N_Vector) {
  auto* P = static_cast<Problem*>(data);
  try {
    if (!jok) {
      P->model.jacobian(t, N_VGetArrayPointer(y), P->params.data(), P->jacobian.data(), *P->ws);
      *jcur = SUNTRUE;
    } else {
      *jcur = SUNFALSE;
    }
    sun::scale_add_identity(-gamma, P->jacobian.data(), P->model.n_states(), sun::dense_matrix_data(A));
    return 0;
  } catch (...) {
    P->error = std::current_exception();
    return -1;
  }
}

int sensitivity_callback(int, sun::real t, N_Vector y, N_Vector, N_Vector* yS, N_Vector* ySdot, void* data, N_Vector,
                         N_Vector) {
  auto* P = static_cast<Problem*>(data);
  try {
    return P->sensitivity->evaluate(t, y, yS, ySdot);
  } catch (...) {
    P->error = std::current_exception();
    return -1;
  }
}

int root_callback(sun::real t, N_Vector y, sun::real* g, void* data) {
  auto* P = static_cast<Problem*>(data);
  try {
    for (std::size_t i = 0; i < P->events.size(); ++i) g[i] = P->event_value(P->events[i], t, N_VGetArrayPointer(y));
    return 0;
  } catch (...) {
    P->error = std::current_exception();
    return -1;
  }
}

int proj_callback(sun::real t, N_Vector y, N_Vector corr, sun::real, N_Vector err, void* data) {
  auto* P = static_cast<Problem*>(data);
  try {
    const double* weights = nullptr;
    if (P->weights != nullptr && CVodeGetErrWeights(P->cvode_mem, P->weights) == CV_SUCCESS)
      weights = N_VGetArrayPointer(P->weights);
    double* e = err ? N_VGetArrayPointer(err) : nullptr;
    if (P->project_velocities)
      P->model.project(t, N_VGetArrayPointer(y), P->params.data(), N_VGetArrayPointer(corr), e, weights, *P->ws);
    else
      N_VConst(0.0, corr);
    if (P->unit_norm) project_unit_norm(*P->unit_norm, N_VGetArrayPointer(y), N_VGetArrayPointer(corr), e);
    return 0;
  } catch (...) {
    P->error = std::current_exception();
    return -1;
  }
}

void check(int flag, const char* function) {
  if (flag < 0) throw SolverError(std::string("CVODE setup failed in ") + function + " (flag " + std::to_string(flag) + ")", 0.0);
}

std::string flag_name(int flag) {
  char* name = CVodeGetReturnFlagName(flag);
  std::string s = name ? name : "UNKNOWN";
  free(name);
  return s;
}

// What a failure means and what to do, in the words a user needs (diffrax/AMICI style).
std::string advice(int flag, const Model& model, Method method) {
  switch (flag) {
    case CV_TOO_MUCH_WORK:
      if (method == Method::Adams)
        return model.stiff() ? "this model is stiff: use method='bdf' (or 'auto')"
                             : "raise max_steps, or use method='bdf' if the problem is stiff";
      return "raise max_steps or loosen rtol; if the steps became tiny, the model may be singular ahead";
    case CV_TOO_MUCH_ACC: return "the requested accuracy is below machine precision; loosen rtol/atol";
    case CV_ERR_FAILURE:
      return "error test failures at the minimum step: a singularity, a discontinuity, or a blow-up of the solution";
    case CV_CONV_FAILURE:
      return "the Newton iteration failed to converge repeatedly: the model may be singular here, or loosen rtol";
    case CV_RHSFUNC_FAIL:
    case CV_FIRST_RHSFUNC_ERR:
    case CV_REPTD_RHSFUNC_ERR:
    case CV_UNREC_RHSFUNC_ERR:
      return "the model could not be evaluated (non-finite values or singular data)";
    case CV_PROJ_MEM_NULL:
    case CV_PROJFUNC_FAIL:
    case CV_REPTD_PROJFUNC_ERR:
      return "projection onto the constraint set failed: the constraints may be singular here";
    default: return "";
  }
}

// ---- CVODE instances reused across runs (a run's set-up cost) ----
// Making a CVODE instance (CVodeCreate and CVodeInit with their ~20 vectors, the Newton or
// fixed-point solver, the dense matrix and linear solver, the projection's memory) costs about
// as much as a short run of a small model. Each thread keeps the instances of its finished runs
// (SolverPool, one SUNContext per thread) and a run of the same kind (method, size, projection)
// takes one and re-initializes it (CVodeReInit) with every optional input set again, to CVODE's
// default where the run sets none: a reused instance integrates bit for bit like a fresh one
// (tests/test_solver_reuse.py). Runs with forward sensitivities make and free their own (the
// sensitivity memory is not re-initialized), and so does a run nested in another's callback
// on the same thread (it gets a context of its own).
constexpr int kAdamsMaxOrder = 12, kBdfMaxOrder = 5;  // CVODE's ADAMS_Q_MAX, BDF_Q_MAX
constexpr int kCvodeMaxNonlinIters = 3;               // NLS_MAXCOR
constexpr double kCvodeNonlinConvCoef = 0.1;          // CORTES

// One CVODE instance with what it was made with. Declaration order = reverse destruction
// order: CVODE's memory is freed first.
struct Solver {
  Method method = Method::Bdf;
  int n = 0;
  bool projection = false;  // BDF with CVODE's projection (CVodeSetProjFn)
  bool roots = false;       // CVodeRootInit was called with events
  bool reusable = true;     // false once sensitivities are attached
  sun::VectorPtr weights;   // CVODE's error weights, for the projection
  sun::MatrixPtr J;
  sun::LinearSolverPtr ls;
  sun::NonlinearSolverPtr nls;
  sun::CvodePtr mem;
};

class SolverPool {
 public:
  static SolverPool& of_this_thread() {
    thread_local SolverPool pool;
    return pool;
  }
  SUNContext context() const { return ctx_.get(); }
  // True for the outermost run on this thread (it may use the pool), false for a nested one.
  bool enter() { return active_++ == 0; }
  void leave() { --active_; }
  // An idle instance of this kind, or null.
  std::unique_ptr<Solver> take(Method method, int n, bool projection) {
    for (auto it = idle_.rbegin(); it != idle_.rend(); ++it) {
      Solver& s = **it;
      if (s.method == method && s.n == n && s.projection == projection) {
        std::unique_ptr<Solver> found = std::move(*it);
        idle_.erase(std::next(it).base());
        return found;
      }
    }
    return nullptr;
  }
  // Keeps a finished run's instance (the kIdleSolvers most recent ones); its messages, if any,
  // go nowhere until the next run that takes it routes them to its own sink.
  void put(std::unique_ptr<Solver> solver) {
    if (!solver->reusable || !solver->mem) return;
    sun::capture_messages(ctx_.get(), solver->mem.get(), &discarded_);
    discarded_.messages.clear();
#if SUNDIALS_VERSION_MAJOR >= 7
    SUNContext_GetLastError(ctx_.get());  // reads and clears a failed run's error: the next starts clean
#endif
    idle_.push_back(std::move(solver));
    if (idle_.size() > kIdleSolvers) idle_.erase(idle_.begin());
  }

 private:
  static constexpr std::size_t kIdleSolvers = 4;
  SolverPool() {
    SUNContext ctx = nullptr;
    check(sun::create_context(&ctx), "SUNContext_Create");
    ctx_.reset(ctx);
  }
  sun::ContextPtr ctx_;
  sun::MessageSink discarded_;
  int active_ = 0;
  std::vector<std::unique_ptr<Solver>> idle_;  // freed before the context
};

// Hands a run's instance back to its thread's pool (or frees it: no pool for nested runs).
struct SolverReturn {
  SolverPool* pool = nullptr;
  void operator()(Solver* solver) const {
    std::unique_ptr<Solver> owned(solver);
    if (pool) pool->put(std::move(owned));
  }
};
using SolverHandle = std::unique_ptr<Solver, SolverReturn>;

// The thread's pool for the outermost run, a context of its own for a nested one.
class PoolUse {
 public:
  PoolUse() : pool_(SolverPool::of_this_thread()), pooled_(pool_.enter()) {
    if (!pooled_) {
      SUNContext ctx = nullptr;
      check(sun::create_context(&ctx), "SUNContext_Create");
      own_ctx_.reset(ctx);
    }
  }
  ~PoolUse() { pool_.leave(); }
  PoolUse(const PoolUse&) = delete;
  PoolUse& operator=(const PoolUse&) = delete;
  SUNContext context() const { return pooled_ ? pool_.context() : own_ctx_.get(); }
  SolverPool* pool() const { return pooled_ ? &pool_ : nullptr; }

 private:
  SolverPool& pool_;
  bool pooled_;
  sun::ContextPtr own_ctx_;
};

class Integration {
 public:
  Integration(const Model& model, const std::vector<double>& params, double t0, double tf, const std::vector<double>& y0,
              const std::vector<double>& t_eval, const std::vector<EventSpec>& events, const IntegrationOptions& opt,
              const InterruptCheck& interrupted)
      : model_(model), t0_(t0), tf_(tf), t_eval_(t_eval), opt_(opt), interrupted_(interrupted),
        n_(model.n_states()), problem_(model, params, events) {
    validate(params, y0, events);
    out_.n_states = n_;
    out_.t_events.resize(events.size());
    out_.y_events.resize(events.size());
    out_.t_event_sensitivities.resize(events.size());
    out_.y_event_sensitivities.resize(events.size());
    event_counts_.assign(events.size(), 0);
    out_.t.reserve(t_eval.size());  // the output's size when given
    out_.y.reserve(t_eval.size() * static_cast<std::size_t>(n_));
    if (opt.method == Method::Dop853) {
      check_explicit(events);
      y0_ = y0;
    } else {
      setup(y0);
    }
  }

  SimulationOutput run();

 private:
  void validate(const std::vector<double>& params, const std::vector<double>& y0, const std::vector<EventSpec>& events);
  void setup(const std::vector<double>& y0);
  // method "dop853" (explicit_rk.hpp): what it does not support is an InputError; the run.
  void check_explicit(const std::vector<EventSpec>& events) const;
  SimulationOutput run_explicit();
  // A CVODE instance with `method` from (t, y_): at t0_, and again at a switch from Adams to BDF.
  void start(double t, Method method, const double* y0_for_sensitivities);
  // An instance of this kind from the thread's pool, re-initialized at (t, y_), or a new one.
  SolverHandle acquire(double t, Method method, bool projection);
  // Every optional input of this run on the instance (CVODE's default where the run sets none).
  void configure(double t_start);
  void* mem() const { return solver_->mem.get(); }
  // Auto's stiffness test after an Adams step (see kStiff*): true when the run should go on with BDF.
  bool adams_is_stiff();
  // Adams' drift control after a step (kDriftTol): true when the residual is above the bound.
  bool drifted(double t, const double* y);
  // Projects y_ onto the constraint set (G-orthogonally, velocities only).
  void project_state(double t);
  // CVODE started afresh from (t, y_) with `method` (start()); the output continues from the same state.
  void restart(double t, Method method, const std::string& why);
  // The frame watch after a step (Model::frame_check): false when the run must stop (fail()
  // has been called). A re-split maps y_ to the new frame and restarts CVODE there; outputs up
  // to t are emitted before, in the old frame.
  bool watch_frame(double t, bool at_start);
  // The first step of an Adams run restarted at t (drift control), from the run being replaced:
  // 0 when that run cannot give one (CVODE then estimates it).
  double restart_step(double t);
  void record(double t, const double* y) {
    out_.t.push_back(t);
    out_.y.insert(out_.y.end(), y, y + n_);
    if (sens_) sens_->record(t, y, out_.sensitivities);
  }
  bool before_or_at(double a, double b) const { return dir_ > 0 ? a <= b : a >= b; }
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
  void apply_jacobian_policy(double t) {
    JacobianPolicy::Counters now;
    now.t = t;
    now.t_start = t0_;
    now.t_end = tf_;
    CVodeGetNumSteps(mem(), &now.steps);
    CVodeGetLastStep(mem(), &now.h);
    CVodeGetNumRhsEvals(mem(), &now.rhs);
    CVodeGetNumJacEvals(mem(), &now.jacobians);
    CVodeGetNumNonlinSolvConvFails(mem(), &now.failures);
    CVodeGetNumLinSolvSetups(mem(), &now.setups);
    if (!policy_->after_step(now)) return;
    set_jacobian_mode(policy_->refreshing());
  }
  // Refresh every step, or reuse: for a stiff model with a cheap Jacobian
  // (JacobianPolicy::refresh_at_setups), a new Jacobian at each linear setup, every
  // kStiffSetupFrequency steps and when the step size changes; else CVODE's own frequencies.
  void set_jacobian_mode(bool every) {
    const bool at_setups = model_.stiff() && policy_->refresh_at_setups();
    const long jacobian = every || at_setups ? 1 : kCvodeJacobianFrequency;
    const long setup = every ? 1 : (at_setups ? JacobianPolicy::kStiffSetupFrequency : kCvodeSetupFrequency);
    check(CVodeSetJacEvalFrequency(mem(), jacobian), "CVodeSetJacEvalFrequency");
    check(CVodeSetLSetupFrequency(mem(), setup), "CVodeSetLSetupFrequency");
  }

  const Model& model_;
  double t0_, tf_;
  const std::vector<double>& t_eval_;
  const IntegrationOptions& opt_;
  const InterruptCheck& interrupted_;
  int n_;
  double dir_ = 1.0;
  std::size_t next_eval_ = 0;
  std::vector<int> event_counts_;
  SimulationOutput out_;
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
  long steps_since_restart_ = 0;
  std::vector<double> corr_;
  std::vector<double> resplit_state_;  // the state mapped to a new frame (watch_frame)
  sun::VectorPtr restart_ydd_, restart_weights_;  // restart_step's scratch
  std::vector<double> y0_;  // method "dop853"
  SolverHandle solver_;
};

void Integration::check_explicit(const std::vector<EventSpec>& events) const {
  auto refuse = [](const std::string& what) {
    throw InputError("method='dop853' does not support " + what + ": use method='adams' (or 'auto')");
  };
  if (!events.empty()) refuse("events");
  if (!opt_.sensitivities.empty()) refuse("sensitivities");
  if (opt_.dense_output) refuse("dense_output");
  if (!opt_.unit_norm.empty() && opt_.project) refuse("unit-norm groups kept by projection");
  if (model_.constrained() && opt_.project) refuse("drift control (pass drift_control=False)");
  if (model_.stiff()) refuse("stiff models");
}

SimulationOutput Integration::run_explicit() {
  ExplicitRkOptions o;
  o.rtol = opt_.rtol;
  o.atol = opt_.atol;
  o.max_step = opt_.max_step;
  o.first_step = opt_.first_step;
  o.max_steps = opt_.max_steps;
  o.max_wall_time = opt_.max_wall_time;
  if (interrupted_) o.interrupted = interrupted_;
  const auto start = Clock::now();
  ExplicitRkOutput rk = integrate_dop853(model_, problem_.params, t0_, tf_, y0_, t_eval_, o);
  out_.t = std::move(rk.t);
  out_.y = std::move(rk.y);
  out_.method = "dop853";
  out_.interrupted = rk.interrupted;
  out_.status = rk.status;
  out_.t_last = rk.status == 0 ? tf_ : rk.t_last;
  out_.stats.n_steps = rk.n_steps;
  out_.stats.n_rhs = rk.n_rhs;
  out_.stats.n_err_test_fails = rk.n_rejected;
  out_.stats.last_order = 8;
  out_.stats.cpu_time = std::chrono::duration<double>(Clock::now() - start).count();
  out_.frame_switch_t = std::move(rk.frame_switch_t);
  out_.frame_switch_solved = std::move(rk.frame_switch_solved);
  if (rk.status == 0) {
    out_.message = "The solver successfully reached the end of the integration interval.";
  } else if (rk.frame_singular) {
    out_.flag_name = "FRAME_SINGULAR";
    out_.message = "Integration stopped at t = " + format_number(out_.t_last) + ": " + rk.message;
  } else {
    out_.flag_name = "DOP853_FAILURE";
    out_.message = "Integration failed at t = " + format_number(out_.t_last) + ": " + rk.message;
  }
  return out_;
}

void Integration::validate(const std::vector<double>& params, const std::vector<double>& y0,
                           const std::vector<EventSpec>& events) {
  if (static_cast<int>(y0.size()) != n_)
    throw InputError("y0 has " + std::to_string(y0.size()) + " entries, expected " + std::to_string(n_));
  if (static_cast<int>(params.size()) != model_.n_params())
    throw InputError("params has " + std::to_string(params.size()) + " entries, expected " + std::to_string(model_.n_params()));
  for (double v : y0)
    if (!std::isfinite(v)) throw InputError("y0 contains NaN or inf");
  for (double v : params)
    if (!std::isfinite(v)) throw InputError("params contains NaN or inf");
  if (!std::isfinite(t0_) || !std::isfinite(tf_)) throw InputError("t_span must be finite");
  if (t0_ == tf_) throw InputError("t_span must have t0 != tf");
  dir_ = tf_ > t0_ ? 1.0 : -1.0;
  if (!(opt_.rtol > 0.0) || !std::isfinite(opt_.rtol)) throw InputError("rtol must be positive and finite");
  if (opt_.atol.size() != 1 && static_cast<int>(opt_.atol.size()) != n_)
    throw InputError("atol must be a scalar or have one entry per state (" + std::to_string(n_) + ")");
  for (double a : opt_.atol)
    if (!(a > 0.0) || !std::isfinite(a)) throw InputError("atol must be positive and finite");
  if (opt_.max_steps < 1) throw InputError("max_steps must be at least 1");
  for (const UnitNormGroup& g : opt_.unit_norm) {
    if (g.position.empty() || (!g.velocity.empty() && g.velocity.size() != g.position.size()))
      throw InputError("solver_options['unit_norm']: each group needs positions and as many velocities (or none)");
    for (const auto* idx : {&g.position, &g.velocity})
      for (int i : *idx)
        if (i < 0 || i >= n_) throw InputError("solver_options['unit_norm']: state index out of range");
  }
  if (opt_.max_order < 0 || opt_.max_order > 12) throw InputError("solver_options['max_order'] must be between 1 and 12");
  if (opt_.jacobian_frequency < 0 || opt_.setup_frequency < 0 || opt_.max_nonlinear_iterations < 0 ||
      opt_.nonlinear_convergence < 0)
    throw InputError("solver_options values must be positive");
  if (opt_.max_step < 0 || opt_.first_step < 0 || opt_.max_wall_time < 0)
    throw InputError("max_step, first_step and max_wall_time must be non-negative");
  for (std::size_t i = 0; i < t_eval_.size(); ++i) {
    double te = t_eval_[i];
    if (!std::isfinite(te) || !before_or_at(t0_, te) || !before_or_at(te, tf_))
      throw InputError("t_eval must lie within t_span");
    if (i > 0 && !before_or_at(t_eval_[i - 1], te) ) throw InputError("t_eval must be sorted in the direction of integration");
  }
  for (const EventSpec& ev : events) {
    if (!ev.callback && !ev.tape) throw InputError("an event needs a tape or a callback");
    if (ev.tape && ev.tape->n_inputs() != model_.system().n_inputs())
      throw InputError("event tape has the wrong number of inputs");
    if (ev.tape && ev.tape->n_outputs() != 1) throw InputError("an event tape must have exactly one output");
    if (ev.direction < -1 || ev.direction > 1) throw InputError("event direction must be -1, 0 or 1");
    if (ev.terminal < 0) throw InputError("event terminal count must be non-negative");
  }
  if (opt_.check_initial_state) model_.check_state(t0_, y0.data(), params.data(), *problem_.ws);
}

void Integration::setup(const std::vector<double>& y0) {
  SUNContext ctx = ctx_ = pool_use_.context();
  y_.reset(N_VNew_Serial(n_, ctx));
  sun::use_compiled_ops(y_.get());  // and so every vector CVODE clones from it (serial_ops.hpp)
  yout_.reset(N_VNew_Serial(n_, ctx));
  std::copy(y0.begin(), y0.end(), N_VGetArrayPointer(y_.get()));
  if (opt_.atol.size() > 1) {
    atol_.reset(N_VNew_Serial(n_, ctx));
    std::copy(opt_.atol.begin(), opt_.atol.end(), N_VGetArrayPointer(atol_.get()));
  }

  // "auto": BDF for stiff models, for unit-norm groups (kept by projection, BDF only) and for
  // constrained models with sensitivities (those of the projected trajectory); Adams otherwise,
  // with drift control by restarts (kDriftTol) and a switch to BDF if the run turns out stiff.
  const bool sensitivities = !opt_.sensitivities.empty();
  Method method = opt_.method;
  if (method == Method::Auto) {
    const bool bdf = model_.stiff() || (opt_.project && !opt_.unit_norm.empty()) ||
                     (sensitivities && model_.constrained() && opt_.project);
    method = bdf ? Method::Bdf : Method::Adams;
    may_switch_ = method == Method::Adams && !sensitivities;
  }
  out_.method = method == Method::Bdf ? "bdf" : "adams";
  start(t0_, method, y0.data());
}

SolverHandle Integration::acquire(double t_start, Method method, bool projection) {
  SolverPool* pool = pool_use_.pool();
  const bool sensitivities = !opt_.sensitivities.empty();
  std::unique_ptr<Solver> s;
  if (pool && !sensitivities) s = pool->take(method, n_, projection);
  if (s) {
    sun::capture_messages(ctx_, s->mem.get(), &sink_);
    check(CVodeReInit(s->mem.get(), t_start, y_.get()), "CVodeReInit");
  } else {
    s = std::make_unique<Solver>();
    s->method = method;
    s->n = n_;
    s->projection = projection;
    s->mem.reset(CVodeCreate(method == Method::Bdf ? CV_BDF : CV_ADAMS, ctx_));
    if (!s->mem) throw SolverError("CVodeCreate failed", t_start);
    void* mem = s->mem.get();
    sun::capture_messages(ctx_, mem, &sink_);
    check(CVodeInit(mem, rhs_callback, t_start, y_.get()), "CVodeInit");
    if (method == Method::Bdf) {
      s->J = sun::make_dense_matrix(n_, ctx_);
      s->ls = sun::make_dense_lu(n_, ctx_);
      if (!s->J || !s->ls) throw SolverError("creating the linear solver failed", t_start);
      check(CVodeSetLinearSolver(mem, s->ls.get(), s->J.get()), "CVodeSetLinearSolver");
      check(CVodeSetLinSysFn(mem, linsys_callback), "CVodeSetLinSysFn");
      if (projection) {
        s->weights.reset(N_VNew_Serial(n_, ctx_));
        check(CVodeSetProjFn(mem, proj_callback), "CVodeSetProjFn");
        check(CVodeSetProjErrEst(mem, SUNTRUE), "CVodeSetProjErrEst");
      }
    } else {
      s->nls.reset(SUNNonlinSol_FixedPoint(y_.get(), 0, ctx_));
      check(CVodeSetNonlinearSolver(mem, s->nls.get()), "CVodeSetNonlinearSolver");
    }
  }
  s->reusable = !sensitivities;
  return SolverHandle(s.release(), SolverReturn{pool});
}

void Integration::configure(double t_start) {
  void* mem = solver_->mem.get();
  const bool adams = solver_->method == Method::Adams;
  problem_.cvode_mem = mem;
  check(CVodeSetUserData(mem, &problem_), "CVodeSetUserData");
  if (opt_.atol.size() == 1)
    check(CVodeSStolerances(mem, opt_.rtol, opt_.atol[0]), "CVodeSStolerances");
  else
    check(CVodeSVtolerances(mem, opt_.rtol, atol_.get()), "CVodeSVtolerances");
  check(CVodeSetStopTime(mem, tf_), "CVodeSetStopTime");
  check(CVodeSetMaxNumSteps(mem, opt_.max_steps), "CVodeSetMaxNumSteps");
  // 0: no bound (CVODE's default); 0: CVODE's estimate of the first step
  check(CVodeSetMaxStep(mem, opt_.max_step > 0 ? opt_.max_step : 0.0), "CVodeSetMaxStep");
  const bool first = opt_.first_step > 0 && t_start == t0_;
  check(CVodeSetInitStep(mem, first ? dir_ * opt_.first_step : 0.0), "CVodeSetInitStep");
  check(CVodeSetMaxOrd(mem, opt_.max_order > 0 ? opt_.max_order : (adams ? kAdamsMaxOrder : kBdfMaxOrder)),
        "CVodeSetMaxOrd");
  check(CVodeSetMaxNonlinIters(mem, opt_.max_nonlinear_iterations > 0 ? opt_.max_nonlinear_iterations
                                                                      : kCvodeMaxNonlinIters),
        "CVodeSetMaxNonlinIters");
  check(CVodeSetNonlinConvCoef(mem, opt_.nonlinear_convergence > 0 ? opt_.nonlinear_convergence
                                                                   : kCvodeNonlinConvCoef),
        "CVodeSetNonlinConvCoef");
}

void Integration::start(double t_start, Method method, const double* y0) {
  method_ = method;
  const bool project_velocities = model_.constrained() && opt_.project;
  const bool project_positions = opt_.project && !opt_.unit_norm.empty();
  // CVODE's memory first (it refers to the solvers), then what it used
  solver_.reset();
  sens_.reset();
  policy_.reset();
  problem_.project_velocities = false;
  problem_.unit_norm = nullptr;
  problem_.weights = nullptr;
  watch_drift_ = false;
  steps_since_restart_ = 0;
  failure_steps_.clear();
  last_failures_ = 0;

  const bool projection = method_ == Method::Bdf && (project_velocities || project_positions);
  solver_ = acquire(t_start, method_, projection);
  configure(t_start);
  void* mem = solver_->mem.get();

  if (method_ == Method::Bdf) {
    // the Jacobian the linear-system function keeps (a reused instance starts with a new one:
    // CVODE refreshes at its first step)
    problem_.jacobian.assign(static_cast<std::size_t>(n_) * n_, 0.0);
    // When to refresh the Jacobian: jacobian_policy.hpp (CVODE's reuse or a refresh every step,
    // whichever advances further per unit of work), unless the caller fixed the frequencies
    // (0: CVODE's default).
    if (opt_.jacobian_frequency > 0 || opt_.setup_frequency > 0) {
      check(CVodeSetJacEvalFrequency(mem, opt_.jacobian_frequency), "CVodeSetJacEvalFrequency");
      check(CVodeSetLSetupFrequency(mem, opt_.setup_frequency), "CVodeSetLSetupFrequency");
    } else {
      // a step's fixed cost in right-hand sides of this model
      const double rhs_ns = std::max(1.0, model_.rhs_cost_ns());
      policy_ = std::make_unique<JacobianPolicy>(model_.jacobian_cost(), kStepNanoseconds / rhs_ns,
                                                 setup_nanoseconds(n_) / rhs_ns);
      set_jacobian_mode(policy_->refreshing());
    }
    if (projection) {
      problem_.weights = solver_->weights.get();
      problem_.project_velocities = project_velocities;
      if (project_positions) problem_.unit_norm = &opt_.unit_norm;
    }
  } else {
    // drift control: kDriftTol (not with sensitivities: theirs are those of the field)
    watch_drift_ = project_velocities && opt_.sensitivities.empty();
  }
  if (!opt_.sensitivities.empty()) {
    sens_ = std::make_unique<SensitivityRun>(model_, problem_.params, opt_, problem_.events);
    problem_.sensitivity = sens_.get();
    out_.n_sens = sens_->count();
    sens_->attach(mem, ctx_, sensitivity_callback, t_start, y0, method_ == Method::Adams,
                  model_.constrained() && opt_.project);
  }
  const auto& events = problem_.events;
  if (!events.empty() || solver_->roots) {  // none: off on a reused instance that had some
    check(CVodeRootInit(mem, static_cast<int>(events.size()), events.empty() ? nullptr : root_callback),
          "CVodeRootInit");
    solver_->roots = !events.empty();
  }
  if (!events.empty()) {
    std::vector<int> dirs;
    for (const auto& ev : events) dirs.push_back(static_cast<int>(dir_) * ev.direction);
    check(CVodeSetRootDirection(mem, dirs.data()), "CVodeSetRootDirection");
    check(CVodeSetNoInactiveRootWarn(mem), "CVodeSetNoInactiveRootWarn");
  }
}

void Integration::emit_t_eval_up_to(double t, const double* y) {
  void* mem = solver_->mem.get();
  while (next_eval_ < t_eval_.size() && before_or_at(t_eval_[next_eval_], t)) {
    double te = t_eval_[next_eval_++];
    if (te == t) {
      record(te, y);
    } else {
      int flag = CVodeGetDky(mem, te, 0, yout_.get());
      if (flag < 0) throw SolverError("CVodeGetDky failed at t = " + format_number(te), te);
      record(te, N_VGetArrayPointer(yout_.get()));
    }
  }
}

void Integration::fail(int flag, double t) {
  out_.status = -1;
  out_.flag = flag;
  out_.flag_name = flag_name(flag);
  std::ostringstream os;
  os << "Integration failed at t = " << t << " with " << out_.flag_name;
  if (problem_.error) {
    try {
      std::rethrow_exception(problem_.error);
    } catch (const std::exception& e) {
      os << ": " << e.what();
    }
  } else if (!problem_.nonfinite.empty()) {
    os << ": " << problem_.nonfinite;
  }
  std::string hint = advice(flag, model_, method_);
  if (!hint.empty()) os << " (" << hint << ")";
  out_.message = os.str();
}

void Integration::record_dense_step() {
  void* mem = solver_->mem.get();
  sun::real tn = 0.0, h = 0.0;
  int q = 0;
  CVodeGetCurrentTime(mem, &tn);
  CVodeGetLastStep(mem, &h);
  CVodeGetLastOrder(mem, &q);
  DenseOutput& d = out_.dense;
  if (!d.t_end.empty() && d.t_end.back() == tn) return;  // the step was stored at a root return
  d.t_end.push_back(tn);
  d.h.push_back(h);
  d.order.push_back(q);
  for (int k = 0; k <= q; ++k) {
    int flag = CVodeGetDky(mem, tn, k, yout_.get());
    if (flag < 0) throw SolverError("CVodeGetDky failed for the dense output at t = " + format_number(tn), tn);
    const double* dk = N_VGetArrayPointer(yout_.get());
    d.derivatives.insert(d.derivatives.end(), dk, dk + n_);
  }
}

// Adds this CVODE instance's counters to the run's (a switch from Adams to BDF has two).
void Integration::collect_stats() {
  void* mem = solver_->mem.get();
  SolverStats s;
  CVodeGetNumSteps(mem, &s.n_steps);
  CVodeGetNumRhsEvals(mem, &s.n_rhs);
  CVodeGetNumErrTestFails(mem, &s.n_err_test_fails);
  CVodeGetNumNonlinSolvIters(mem, &s.n_nonlin_iters);
  CVodeGetNumNonlinSolvConvFails(mem, &s.n_nonlin_fails);
  CVodeGetLastOrder(mem, &s.last_order);
  CVodeGetLastStep(mem, &s.last_step);
  if (!problem_.events.empty()) CVodeGetNumGEvals(mem, &s.n_root_evals);
  if (method_ == Method::Bdf) {
    CVodeGetNumLinSolvSetups(mem, &s.n_lin_setups);
    CVodeGetNumJacEvals(mem, &s.n_jac);
    if ((model_.constrained() || !opt_.unit_norm.empty()) && opt_.project) CVodeGetNumProjEvals(mem, &s.n_proj);
  }
  SolverStats& o = out_.stats;
  o.n_steps += s.n_steps;
  o.n_rhs += s.n_rhs;
  o.n_err_test_fails += s.n_err_test_fails;
  o.n_nonlin_iters += s.n_nonlin_iters;
  o.n_nonlin_fails += s.n_nonlin_fails;
  o.n_root_evals += s.n_root_evals;
  o.n_lin_setups += s.n_lin_setups;
  o.n_jac += s.n_jac;
  o.n_proj += s.n_proj;
  o.last_order = s.last_order;
  o.last_step = s.last_step;
}

bool Integration::adams_is_stiff() {
  long failures = 0, steps = 0;
  CVodeGetNumNonlinSolvConvFails(mem(), &failures);
  CVodeGetNumSteps(mem(), &steps);
  if (failures == last_failures_) return false;
  last_failures_ = failures;
  // a failure from a non-finite right-hand side is the model's domain ending, not stiffness
  if (problem_.n_nonfinite != last_nonfinite_) {
    last_nonfinite_ = problem_.n_nonfinite;
    return false;
  }
  failure_steps_.push_back(steps);
  while (!failure_steps_.empty() && failure_steps_.front() <= steps - kStiffWindow) failure_steps_.erase(failure_steps_.begin());
  return static_cast<long>(failure_steps_.size()) >= kStiffFailures;
}

bool Integration::drifted(double t, const double* y) {
  double residual = 0.0, scale = 1.0;
  model_.constraint_residual(t, y, problem_.params.data(), *problem_.ws, &residual, &scale);
  return residual > kDriftTol * opt_.rtol * scale;
}

void Integration::project_state(double t) {
  double* y = N_VGetArrayPointer(y_.get());
  corr_.assign(n_, 0.0);
  model_.project(t, y, problem_.params.data(), corr_.data(), nullptr, nullptr, *problem_.ws);
  for (int i = 0; i < n_; ++i) y[i] += corr_[i];
}

// CVODE starts Adams at order 1 with the step of its estimate (cvHin: the local error h^2/2
// |y''|_wrms of order 1 at one, with the bias 1/2, from up to four extra right-hand sides at
// finite-difference points). A restart after a drift has that second derivative already: the
// replaced run's Nordsieck history at t (CVodeGetDky, order >= 2; the projection moved y by
// 0.1 rtol of its scale at most, which leaves y'' as it is to that accuracy), weighted with its
// error weights: h0 = 1/2 sqrt(2 / |y''|_wrms), and never above its last step (at a higher
// order). CVODE's error test still accepts or rejects that step.
double Integration::restart_step(double t) {
  void* mem = solver_->mem.get();
  int order = 0;
  sun::real h_last = 0.0;
  CVodeGetLastOrder(mem, &order);
  CVodeGetLastStep(mem, &h_last);
  if (method_ != Method::Adams || order < 2 || !(std::abs(h_last) > 0.0)) return 0.0;
  if (!restart_ydd_) {
    restart_ydd_.reset(N_VNew_Serial(n_, ctx_));
    restart_weights_.reset(N_VNew_Serial(n_, ctx_));
  }
  if (CVodeGetDky(mem, t, 2, restart_ydd_.get()) != CV_SUCCESS) return 0.0;
  if (CVodeGetErrWeights(mem, restart_weights_.get()) != CV_SUCCESS) return 0.0;
  const double norm = N_VWrmsNorm(restart_ydd_.get(), restart_weights_.get());
  if (!(norm > 0.0) || !std::isfinite(norm)) return 0.0;
  return std::min(0.5 * std::sqrt(2.0 / norm), std::abs(h_last));
}

void Integration::restart(double t, Method method, const std::string& why) {
  collect_stats();
  ++out_.n_restarts;
  const double h0 = method == Method::Adams ? restart_step(t) : 0.0;
  start(t, method, nullptr);
  if (h0 > 0.0) check(CVodeSetInitStep(solver_->mem.get(), dir_ * h0), "CVodeSetInitStep");
  if (method == Method::Bdf) {
    may_switch_ = false;
    out_.t_switch = t;
    out_.method = "adams->bdf at t=" + format_number(t) + " (" + why + ")";
  }
}

bool Integration::watch_frame(double t, bool at_start) {
  double* y = N_VGetArrayPointer(y_.get());
  const double* p = problem_.params.data();
  FrameCheck verdict;
  try {
    verdict = model_.frame_check(t, y, p, *problem_.ws, at_start);
    if (verdict.action == FrameCheck::kNone) return true;
    if (verdict.action == FrameCheck::kResplit && !sens_) {
      resplit_state_.assign(y, y + n_);  // mapped to the new frame; y stays in the old one for the outputs
      std::vector<int> solved = model_.resplit(t, resplit_state_.data(), p, *problem_.ws);
      if (!at_start) {  // the step as taken, in the old frame
        if (opt_.dense_output) record_dense_step();
        emit_t_eval_up_to(t, y);
        if (t_eval_.empty()) record(t, y);
      }
      std::copy(resplit_state_.begin(), resplit_state_.end(), y);
      out_.frame_switch_solved.push_back(std::move(solved));
      out_.frame_switch_t.push_back(t);
      collect_stats();
      ++out_.n_restarts;
      start(t, method_, nullptr);
      return true;
    }
  } catch (const ModelError& e) {  // no regular split at y (the constraints lost rank)
    verdict.action = FrameCheck::kSingular;
    verdict.message = std::string("no frame can be chosen here: ") + e.what();
  }
  std::string why = verdict.message;
  if (verdict.action == FrameCheck::kResplit && sens_)
    why = "the frame of the state must be re-chosen at t = " + format_number(t) + " (growth " +
          format_number(verdict.measure) + "), which the forward sensitivities cannot follow: run them in the "
          "coordinates (velocities='coordinates' for a reduced model, system.nonholonomic() or "
          "system.vakonomic() for the Hamel and frame-vakonomic models)";
  if (verdict.action == FrameCheck::kSingular || sens_) {
    fail(0, t);
    out_.flag_name = "FRAME_SINGULAR";
    out_.message = "Integration stopped at t = " + format_number(t) + ": " + why;
  }
  return false;
}

SimulationOutput Integration::run() {
  if (opt_.method == Method::Dop853) return run_explicit();
  const auto start = Clock::now();
  void* mem = solver_->mem.get();
  double* y = N_VGetArrayPointer(y_.get());
  if (t_eval_.empty()) record(t0_, y);
  emit_t_eval_up_to(t0_, y);
  double t = t0_;
  long steps = 0, tiny_steps = 0;
  std::vector<int> roots(problem_.events.size());
  // the frame watch (Model::frame_check): at the start, then after every step
  const bool watching = model_.watches_frame();
  const bool started = !watching || watch_frame(t0_, true);
  mem = solver_->mem.get();

  while (started) {
    int flag = CVode(mem, tf_, y_.get(), &t, CV_ONE_STEP);
    if (flag < 0) {
      // the user's own exception, not a solver failure: it leaves integrate() unchanged
      if (problem_.callback_error) std::rethrow_exception(problem_.callback_error);
      fail(flag, t);
      break;
    }
    ++steps;
    ++steps_since_restart_;
    if (flag != CV_ROOT_RETURN && flag != CV_TSTOP_RETURN && t != tf_) {
      const bool stiff = may_switch_ && adams_is_stiff();
      // "auto" restarts Adams at most every kMinRestartSteps steps and switches to BDF when it
      // would need to restart sooner; "adams" waits until then
      const bool drift = !stiff && watch_drift_ && (may_switch_ || steps_since_restart_ >= kMinRestartSteps) &&
                         drifted(t, y);
      if (stiff || drift) {
        // the step as taken (dense output), then a fresh start from it, projected after a drift
        if (opt_.dense_output) record_dense_step();
        if (drift) project_state(t);
        emit_t_eval_up_to(t, y);
        if (t_eval_.empty()) record(t, y);
        if (stiff)
          restart(t, Method::Bdf, "stiff");
        else if (may_switch_ && steps_since_restart_ < kMinRestartSteps)
          restart(t, Method::Bdf, "constraint drift");
        else
          restart(t, Method::Adams, "constraint drift");
        mem = solver_->mem.get();  // the new instance
        continue;
      }
    }
    if (watching && flag != CV_ROOT_RETURN && flag != CV_TSTOP_RETURN && t != tf_) {
      const long restarts = out_.n_restarts;
      if (!watch_frame(t, false)) break;
      if (out_.n_restarts != restarts) {  // re-split: outputs emitted, CVODE restarted
        mem = solver_->mem.get();
        continue;
      }
    }
    if (policy_) apply_jacobian_policy(t);
    if (opt_.dense_output) record_dense_step();
    emit_t_eval_up_to(t, y);
    if (flag == CV_ROOT_RETURN) {
      CVodeGetRootInfo(mem, roots.data());
      bool stop = false;
      for (std::size_t i = 0; i < roots.size(); ++i) {
        if (roots[i] == 0) continue;
        out_.t_events[i].push_back(t);
        out_.y_events[i].insert(out_.y_events[i].end(), y, y + n_);
        if (sens_) sens_->record_event(static_cast<int>(i), t, y, out_.t_event_sensitivities[i],
                                       out_.y_event_sensitivities[i]);
        const EventSpec& ev = problem_.events[i];
        if (ev.terminal > 0 && ++event_counts_[i] >= ev.terminal) stop = true;
      }
      if (stop) {
        if (t_eval_.empty()) record(t, y);
        out_.status = 1;
        out_.message = "A termination event occurred.";
        break;
      }
    } else if (t_eval_.empty()) {
      record(t, y);
    }
    if (flag == CV_TSTOP_RETURN || t == tf_) {
      out_.status = 0;
      out_.message = "The solver successfully reached the end of the integration interval.";
      break;
    }
    if (steps >= opt_.max_steps) {
      fail(CV_TOO_MUCH_WORK, t);
      out_.message = "Integration stopped at t = " + format_number(t) + " after max_steps = " +
                     std::to_string(opt_.max_steps) + " steps (CV_TOO_MUCH_WORK; " +
                     advice(CV_TOO_MUCH_WORK, model_, method_) + ")" + diagnosis();
      break;
    }
    // A step size collapsed to round-off relative to t means CVODE is creeping towards a point
    // where the model is undefined or singular (e.g. a non-finite right-hand side beyond it):
    // stop now with the reason instead of spending the whole max_steps budget.
    sun::real h_last = 0.0;
    CVodeGetLastStep(mem, &h_last);
    if (std::abs(h_last) <= 1e3 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t))) {
      if (++tiny_steps >= 100) {
        fail(CV_TOO_MUCH_WORK, t);
        out_.flag_name = "STEP_SIZE_COLLAPSED";
        out_.message = "Integration stopped at t = " + format_number(t) + ": the step size collapsed to " +
                       format_number(h_last) + " over 100 steps (the solution blows up, or the model is singular or undefined "
                       "just ahead: check the state there, the metric, the constraints and the forces)" + diagnosis();
        break;
      }
    } else {
      tiny_steps = 0;
    }
    if (steps % 64 == 0) {
      double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
      if (opt_.max_wall_time > 0 && elapsed > opt_.max_wall_time) {
        out_.status = -1;
        out_.flag = 0;
        out_.flag_name = "WALL_TIME_EXCEEDED";
        out_.message = "Integration stopped at t = " + format_number(t) + " after max_wall_time = " +
                       format_number(opt_.max_wall_time) + " s (raise max_wall_time or loosen rtol" +
                       std::string(method_ == Method::Adams && model_.stiff() ? "; the model is stiff: use method='bdf'" : "") +
                       ")" + diagnosis();
        break;
      }
      if (interrupted_ && interrupted_()) {
        out_.status = -1;
        out_.flag_name = "INTERRUPTED";
        out_.message = "Integration interrupted at t = " + format_number(t);
        out_.interrupted = true;
        break;
      }
    }
  }
  out_.t_last = t;
  collect_stats();
  out_.stats.cpu_time = std::chrono::duration<double>(Clock::now() - start).count();
  out_.messages = std::move(sink_.messages);
  return std::move(out_);
}

}  // namespace

SimulationOutput integrate(const Model& model, const std::vector<double>& params, double t0, double tf,
                           const std::vector<double>& y0, const std::vector<double>& t_eval,
                           const std::vector<EventSpec>& events, const IntegrationOptions& options,
                           const InterruptCheck& interrupted) {
  Integration integration(model, params, t0, tf, y0, t_eval, events, options, interrupted);
  return integration.run();
}

SimulationOutput failed_output(const std::exception_ptr& error, double t0, int n_states) {
  SimulationOutput out;
  out.n_states = n_states;
  out.status = -1;
  out.t_last = t0;
  try {
    std::rethrow_exception(error);
  } catch (const SolverError& e) {
    out.t_last = e.t;
    out.flag_name = "SOLVER_ERROR";
    out.message = e.what();
  } catch (const ModelError& e) {
    out.flag_name = "MODEL_ERROR";
    out.message = e.what();
  } catch (const InputError& e) {
    out.flag_name = "INPUT_ERROR";
    out.message = e.what();
  } catch (const std::exception& e) {
    out.flag_name = "ERROR";
    out.message = e.what();
  }
  out.message = "Integration failed at t = " + format_number(out.t_last) + ": " + out.message;
  return out;
}

std::vector<SimulationOutput> integrate_many(const Model& model, const std::vector<double>& params, double t0,
                                             double tf, const std::vector<double>& y0s, int n_runs,
                                             const std::vector<double>& t_eval, const std::vector<EventSpec>& events,
                                             const IntegrationOptions& options, int threads,
                                             const InterruptCheck& interrupted) {
  const int ns = model.n_states(), np = model.n_params();
  if (n_runs < 0) throw InputError("n_runs must be non-negative");
  if (static_cast<long>(y0s.size()) != static_cast<long>(n_runs) * ns)
    throw InputError("Y0 must have shape (n_runs, " + std::to_string(ns) + ")");
  if (static_cast<long>(params.size()) != static_cast<long>(n_runs) * np)
    throw InputError("params must have shape (n_runs, " + std::to_string(np) + ")");
  for (const auto& ev : events)
    if (ev.callback) throw InputError("simulate_many takes symbolic events only (Python callables need the GIL)");

  std::vector<SimulationOutput> results(n_runs);
  std::vector<std::exception_ptr> errors(n_runs);
  std::atomic<int> next{0};
  int done = 0;
  std::mutex mutex;
  std::condition_variable finished;
  std::atomic<bool> cancel{false};
  InterruptCheck cancelled = [&cancel] { return cancel.load(); };

  auto worker = [&] {
    for (int i = next++; i < n_runs; i = next++) {
      if (cancel.load()) {
        results[i].interrupted = true;
      } else {
        try {
          std::vector<double> p(params.begin() + long(i) * np, params.begin() + long(i + 1) * np);
          std::vector<double> y0(y0s.begin() + long(i) * ns, y0s.begin() + long(i + 1) * ns);
          results[i] = integrate(model, p, t0, tf, y0, t_eval, events, options, cancelled);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      }
      // Wake the watching thread only for the last run: on a machine with as many workers as
      // cores, a wake-up per run would preempt a worker thousands of times per second.
      bool last;
      {
        std::lock_guard<std::mutex> lock(mutex);
        last = ++done == n_runs;
      }
      if (last) finished.notify_one();
    }
  };

  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::max(1, std::min(threads, n_runs));
  std::vector<std::thread> pool;
  for (int k = 0; k < threads; ++k) pool.emplace_back(worker);
  // The calling thread watches for an interrupt (e.g. Ctrl-C) while the workers run.
  {
    std::unique_lock<std::mutex> lock(mutex);
    while (done < n_runs) {
      finished.wait_for(lock, std::chrono::milliseconds(50));
      if (done < n_runs && interrupted && !cancel.load()) {
        lock.unlock();
        if (interrupted()) cancel = true;
        lock.lock();
      }
    }
  }
  for (auto& th : pool) th.join();
  // A run that threw (unusable data at its start, a setup failure) is a failed result of its
  // own: the batch keeps every other run.
  for (int i = 0; i < n_runs; ++i)
    if (errors[i]) results[i] = failed_output(errors[i], t0, ns);
  return results;
}

}  // namespace nonholo
