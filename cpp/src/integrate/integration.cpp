#include "integration.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <sstream>

#include <cvodes/cvodes_proj.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "nonholo/errors.hpp"
#include "nonholo/format.hpp"
#include "nonholo/run_driver.hpp"
#include "nonholo/sundials/dense_lu.hpp"
#include "nonholo/sundials/second_order_lu.hpp"
#include "nonholo/sundials/sparse_lu.hpp"
#include "nonholo/sundials/serial_ops.hpp"

namespace nonholo {

// The one check of a run's options (InputError naming the option): for every run, and when the
// binding's RunOptions is made (n_states < 0: what does not depend on the model).
void check_options(const IntegrationOptions& o, int n_states) {
  if (!(o.rtol > 0.0) || !std::isfinite(o.rtol)) throw InputError("rtol must be positive and finite");
  if (o.atol.empty()) throw InputError("atol must be a scalar or have one entry per state");
  if (n_states >= 0 && o.atol.size() != 1 && static_cast<int>(o.atol.size()) != n_states)
    throw InputError("atol must be a scalar or have one entry per state (" + std::to_string(n_states) + ")");
  for (double a : o.atol)
    if (!(a > 0.0) || !std::isfinite(a)) throw InputError("atol must be positive and finite");
  if (o.max_steps < 1) throw InputError("max_steps must be at least 1");
  for (const UnitNormGroup& g : o.unit_norm) {
    if (g.position.empty() || (!g.velocity.empty() && g.velocity.size() != g.position.size()))
      throw InputError("solver_options['unit_norm']: each group needs positions and as many velocities (or none)");
    for (const auto* idx : {&g.position, &g.velocity})
      for (int i : *idx)
        if (i < 0 || (n_states >= 0 && i >= n_states))
          throw InputError("solver_options['unit_norm']: state index out of range");
  }
  if (o.max_order < 0 || o.max_order > 12) throw InputError("solver_options['max_order'] must be between 1 and 12");
  if (o.jacobian_frequency < 0 || o.setup_frequency < 0 || o.max_nonlinear_iterations < 0 ||
      o.nonlinear_convergence < 0 || o.jacobian_step_growth < 0 || (o.jacobian_step_growth > 0 && o.jacobian_step_growth <= 1))
    throw InputError("solver_options values must be positive");
  if (o.max_step < 0 || o.first_step < 0 || o.max_wall_time < 0)
    throw InputError("max_step, first_step and max_wall_time must be non-negative");
}

namespace cvode {

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
  check_options(opt_, n_);
  for (std::size_t i = 0; i < t_eval_.size(); ++i) {
    double te = t_eval_[i];
    if (!std::isfinite(te) || !before_or_at(t0_, te) || !before_or_at(te, tf_))
      throw InputError("t_eval must lie within t_span");
    if (i > 0 && !before_or_at(t_eval_[i - 1], te) ) throw InputError("t_eval must be sorted in the direction of integration");
  }
  for (const EventSpec& ev : events) {
    if (!ev.callback && !ev.tape && !ev.state_function) throw InputError("an event needs a tape or a callback");
    const MechanicalSystem& sys = model_.system();
    if (ev.tape && ev.tape->n_inputs() != sys.n_inputs() + (ev.dynamics ? sys.n() + sys.k() : 0))
      throw InputError("event tape has the wrong number of inputs");
    if (ev.dynamics && sys.k() == 0) throw InputError("an event of the no-slip dynamics needs constraint rows");
    if (ev.tape && ev.tape->n_outputs() != 1) throw InputError("an event tape must have exactly one output");
    if (ev.direction < -1 || ev.direction > 1) throw InputError("event direction must be -1, 0 or 1");
    if (ev.terminal < 0) throw InputError("event terminal count must be non-negative");
  }
  if (opt_.check_initial_state) model_.check_state(t0_, y0.data(), params.data(), *problem_.ws);
}

void Integration::setup() {
  SUNContext ctx = ctx_ = pool_use_.context();
  y_.reset(N_VNew_Serial(n_, ctx));
  sun::use_compiled_ops(y_.get());  // and so every vector CVODE clones from it (serial_ops.hpp)
  yout_.reset(N_VNew_Serial(n_, ctx));
  if (opt_.atol.size() > 1) {
    atol_.reset(N_VNew_Serial(n_, ctx));
    std::copy(opt_.atol.begin(), opt_.atol.end(), N_VGetArrayPointer(atol_.get()));
  }

  // "auto": BDF for stiff models; DOP853 (kAutoExplicitTolerance, tighter on long runs:
  // kAutoTightenSteps; with drift control after its steps; events located on its interpolant) for
  // the others when the run has no sensitivities (with events, Adams held a noisy
  // step: a sleigh whose turning had died out, its rate at +-2e-11, took 58,731 steps of 0.016 over
  // t = 2000 where DOP853 and BDF take 71); else BDF for unit-norm groups (kept by projection,
  // BDF only) and for constrained models with sensitivities (those of the projected trajectory),
  // and Adams otherwise, with drift control by projection (kDriftTol) and a switch to BDF if the
  // run turns out stiff (with sensitivities too: BDF's start from the sensitivities Adams
  // reached, restart()).
  const bool sensitivities = !opt_.sensitivities.empty();
  Method method = opt_.method;
  if (method == Method::Auto && !model_.stiff() && !sensitivities) {
    explicit_first_ = true;
    out_.method = "dop853";
    return;  // CVODE is started only if the run turns stiff
  }
  if (method == Method::Auto) {
    const bool bdf = model_.stiff() || (opt_.project && !opt_.unit_norm.empty()) ||
                     (sensitivities && problem_.parts.constraints && opt_.project);
    method = bdf ? Method::Bdf : Method::Adams;
    may_switch_ = method == Method::Adams;
  }
  out_.method = method == Method::Bdf ? "bdf" : "adams";
  begin_method_ = method;
}

SolverHandle Integration::acquire(double t_start, Method method, bool projection) {
  SolverPool* pool = pool_use_.pool();
  const bool sensitivities = !opt_.sensitivities.empty();
  std::unique_ptr<Solver> s;
  const SparseJacobian* sparse = problem_.parts.sparse_jacobian;
  const JacobianStructure* pattern = method == Method::Bdf && sparse ? &sparse->jacobian_structure() : nullptr;
  const bool second_order = method == Method::Bdf && halved_newton();
  if (pool && !sensitivities) s = pool->take(method, n_, projection, second_order, pattern);
  if (s) {
    sun::capture_messages(ctx_, s->mem.get(), &sink_);
    check(CVodeReInit(s->mem.get(), t_start, y_.get()), "CVodeReInit");
  } else {
    s = std::make_unique<Solver>();
    s->method = method;
    s->n = n_;
    s->projection = projection;
    s->second_order = second_order;
    if (pattern) {
      s->pattern_outer = pattern->outer;
      s->pattern_inner = pattern->inner;
    }
    s->mem.reset(CVodeCreate(method == Method::Bdf ? CV_BDF : CV_ADAMS, ctx_));
    if (!s->mem) throw SolverError("CVodeCreate failed", t_start);
    void* mem = s->mem.get();
    sun::capture_messages(ctx_, mem, &sink_);
    check(CVodeInit(mem, rhs_callback, t_start, y_.get()), "CVodeInit");
    if (method == Method::Bdf) {
      if (pattern) {
        s->J = sun::make_sparse_matrix(*pattern, ctx_);
        s->ls = sun::make_sparse_lu(ctx_);
      } else if (second_order) {
        s->J = sun::make_second_order_matrix(n_ / 2, ctx_);
        s->ls = sun::make_second_order_lu(n_ / 2, ctx_);
      } else {
        s->J = sun::make_dense_matrix(n_, ctx_);
        s->ls = sun::make_dense_lu(n_, ctx_);
      }
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
  const bool project_velocities = problem_.parts.constraints && opt_.project;
  const bool project_positions = opt_.project && !opt_.unit_norm.empty();
  // CVODE's memory first (it refers to the solvers), then what it used
  solver_.reset();
  record_.attach_sensitivities(nullptr);
  sens_.reset();
  policy_.reset();
  jacobians_seen_ = -1;
  jacobian_step_ = largest_step_ = 0.0;
  growth_refresh_ = false;
  problem_.project_velocities = false;
  problem_.unit_norm = nullptr;
  problem_.weights = nullptr;
  watch_drift_ = false;
  switch_to_bdf_ = false;
  bounded_stop_ = false;
  steps_since_restart_ = 0;
  failure_steps_.clear();
  last_failures_ = 0;
  held_checks_ = decay_checks_ = 0;

  const bool projection = method_ == Method::Bdf && (project_velocities || project_positions);
  solver_ = acquire(t_start, method_, projection);
  configure(t_start);
  void* mem = solver_->mem.get();

  if (method_ == Method::Bdf) {
    // the Jacobian the linear-system function keeps (a reused instance starts with a new one:
    // CVODE refreshes at its first step)
    const SparseJacobian* sparse = problem_.parts.sparse_jacobian;
    problem_.jacobian.assign(sparse ? static_cast<std::size_t>(sparse->jacobian_structure().nnz()) : static_cast<std::size_t>(n_) * n_, 0.0);
    // When to refresh the Jacobian: jacobian_policy.hpp (CVODE's reuse or a refresh every step,
    // whichever advances further per unit of work), unless the caller fixed the frequencies
    // (0: CVODE's default).
    if (opt_.jacobian_frequency > 0 || opt_.setup_frequency > 0) {
      check(CVodeSetJacEvalFrequency(mem, opt_.jacobian_frequency), "CVodeSetJacEvalFrequency");
      check(CVodeSetLSetupFrequency(mem, opt_.setup_frequency), "CVodeSetLSetupFrequency");
    } else {
      // a step's fixed cost in right-hand sides of this model; a Jacobian's measured on the
      // model's first run (measured_costs.hpp), unless the caller asked for the estimate
      const CostEstimate& cost = model_.cost();
      const double rhs_ns = std::max(1.0, cost.rhs_cost_ns());
      double jacobian = cost.jacobian_cost(), reuse_work = JacobianPolicy::kReuseWork;
      if (opt_.measured_jacobian_costs) {
        const double measured = model_.measured_jacobian_cost(t_start, N_VGetArrayPointer(y_.get()), problem_.params.data());
        if (std::isfinite(measured)) {
          jacobian = measured;
          reuse_work = JacobianPolicy::kMeasuredReuseWork;
        }
      }
      policy_ = std::make_unique<JacobianPolicy>(jacobian, kStepNanoseconds / rhs_ns,
                                                 setup_nanoseconds(halved_newton() ? n_ / 2 : n_) / rhs_ns, reuse_work);
      set_jacobian_mode(policy_->refreshing());
    }
    if (projection) {
      problem_.weights = solver_->weights.get();
      problem_.project_velocities = project_velocities;
      if (project_positions) problem_.unit_norm = &opt_.unit_norm;
    }
  } else {
    // drift control by the run driver: kDriftTol (not with sensitivities: theirs are those of the field)
    watch_drift_ = project_velocities && opt_.sensitivities.empty();
  }
  if (!opt_.sensitivities.empty()) {
    sens_ = std::make_unique<SensitivityRun>(model_, problem_.params, opt_, problem_.events);
    record_.attach_sensitivities(sens_.get());
    problem_.sensitivity = sens_.get();
    out_.n_sens = sens_->count();
    sens_->attach(mem, ctx_, sensitivity_callback, t_start, y0, method_ == Method::Adams,
                  problem_.parts.constraints && opt_.project, switch_sensitivities_.empty() ? nullptr : switch_sensitivities_.data());
    switch_sensitivities_.clear();
  }
  // Root finding is set up afresh on every start: CVodeRootInit with an unchanged number of events
  // returns early and keeps a reused instance's state, such as the events a previous run found
  // identically zero and turned inactive (they would miss a root in this run's first step).
  // Turning it off first frees that state; CVodeRootInit with events then starts every one active.
  const auto& events = problem_.events;
  if (solver_->roots) check(CVodeRootInit(mem, 0, nullptr), "CVodeRootInit");
  solver_->roots = false;
  if (!events.empty()) {
    check(CVodeRootInit(mem, static_cast<int>(events.size()), root_callback), "CVodeRootInit");
    solver_->roots = true;
  }
  roots_.assign(events.size(), 0);
  problem_.passed_roots.clear();
  if (!events.empty()) {
    std::vector<int> dirs;
    for (const auto& ev : events) dirs.push_back(static_cast<int>(dir_) * ev.direction);
    check(CVodeSetRootDirection(mem, dirs.data()), "CVodeSetRootDirection");
    check(CVodeSetNoInactiveRootWarn(mem), "CVodeSetNoInactiveRootWarn");
  }
}

const double* Integration::at(double te) {
  if (te == t_) return state();
  int flag = CVodeGetDky(mem(), te, 0, yout_.get());
  if (flag < 0) throw SolverError("CVodeGetDky failed at t = " + format_number(te), te);
  return N_VGetArrayPointer(yout_.get());
}

double Integration::last_step() const {
  sun::real h = 0.0;
  CVodeGetLastStep(mem(), &h);
  return h;
}

void Integration::fail(int flag, double t) {
  const std::string name = flag_name(flag);
  std::ostringstream os;
  os << "Integration failed at t = " << t << " with " << name;
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
  failure_ = {flag, name, os.str(), ""};
}

std::string Integration::too_much_work_advice() const {
  // "auto" ran Adams (sensitivities, dense output) and its stiffness test did not fire: not "use auto"
  // (an outside probe's fit of a damping 1e4 at rtol 1e-10: 500,000 Adams steps to t = 3.2, BDF 0.3 s)
  if (opt_.method == Method::Auto && method_ == Method::Adams && !model_.stiff())
    return "raise max_steps; 'auto' ran Adams here (with sensitivities or dense output) and did not find the run "
           "stiff: if it is (a fast decaying mode, as a strong damping), use method='bdf'";
  return advice(CV_TOO_MUCH_WORK, model_, method_);
}

std::string Integration::limit_hint() const {
  return method_ == Method::Adams && model_.stiff() ? "; the model is stiff: use method='bdf'" : "";
}

void Integration::record_dense(DenseOutput& d) {
  void* mem = solver_->mem.get();
  sun::real tn = 0.0, h = 0.0;
  int q = 0;
  CVodeGetCurrentTime(mem, &tn);
  CVodeGetLastStep(mem, &h);
  CVodeGetLastOrder(mem, &q);
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

void Integration::add_stats(SolverStats&) {
  if (solver_) collect_stats();
}

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
    if ((problem_.parts.constraints || !opt_.unit_norm.empty()) && opt_.project) CVodeGetNumProjEvals(mem, &s.n_proj);
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

SimulationOutput Integration::run() {
  record_.start_clock();
  RunDriver driver(model_, problem_.params, opt_, record_, problem_.event_values);
  std::vector<double> y = y0_;
  try {
    run_with(driver, y);
  } catch (...) {
    if (!problem_.event_values.callback_error) throw;
    // the caller's event function raised: the run ends at its last output, which goes with it
    out_.caller_error = problem_.event_values.callback_error;
    const double t = out_.t.empty() ? t0_ : out_.t.back();
    record_.failed(-1, "INTERRUPTED", "Integration stopped after t = " + format_number(t) +
                                          ": an event function raised an exception");
    record_.finish(t, out_.t.empty() ? y0_.data() : out_.y.data() + out_.y.size() - n_);
  }
  out_.messages = std::move(sink_.messages);
  return std::move(out_);
}

void Integration::run_with(RunDriver& driver, std::vector<double>& y) {
  if (opt_.method == Method::Dop853 || explicit_first_) {
    // "auto" on a non-stiff model: DOP853 (kAutoExplicitTolerance, kAutoTightenSteps) to the end,
    // or to where it turns stiff and BDF goes on
    const Dop853Settings settings = explicit_first_ ? Dop853Settings{kAutoExplicitTolerance, true, kAutoTightenSteps}
                                                    : Dop853Settings{};
    std::unique_ptr<Stepper> rk = make_dop853(model_, problem_.params, tf_, dir_, opt_, settings);
    out_.method = "dop853";
    if (driver.run(*rk, t0_, y.data(), true)) {
      const double t = rk->time();
      std::copy(rk->state(), rk->state() + n_, y.begin());
      out_.method = "dop853->bdf at t=" + format_number(t) + " (stiff)";
      out_.t_switch = t;
      begin_method_ = Method::Bdf;
      driver.run(*this, t, y.data(), false);
    }
  } else {
    driver.run(*this, t0_, y.data(), true);
  }
}

void Integration::begin(double t, const double* y) {
  double* state = N_VGetArrayPointer(y_.get());
  if (state != y) std::copy(y, y + n_, state);
  t_ = t;
  start(t, begin_method_, state);
}

StepResult Integration::step() {
  StepResult r;
  sun::real t = t_;
  const int flag = CVode(mem(), tf_, y_.get(), &t, CV_ONE_STEP);
  t_ = t;
  if (flag < 0) {
    // the user's own exception, not a solver failure: it leaves integrate() unchanged
    if (problem_.event_values.callback_error) std::rethrow_exception(problem_.event_values.callback_error);
    if (flag == CV_RTFUNC_FAIL && stepped_past_events(r)) return r;
    fail(flag, t_);
    r.failed = true;
    return r;
  }
  ++steps_since_restart_;
  r.root = flag == CV_ROOT_RETURN;
  r.end = t_ == tf_ || (flag == CV_TSTOP_RETURN && !bounded_stop_);
  if (bounded_stop_) {
    bounded_stop_ = false;
    check(CVodeSetStopTime(mem(), tf_), "CVodeSetStopTime");
  }
  // "auto"'s stiffness test (Adams). The drift never makes "auto" switch to BDF (whose error
  // constants are larger and which damps energy).
  switch_to_bdf_ = !r.root && !r.end && may_switch_ && adams_is_stiff(t_);
  if (policy_) apply_jacobian_policy(t_);
  if (r.root) {  // exact zeros past these roots read as the sign crossed to (Problem::root_value)
    CVodeGetRootInfo(mem(), roots_.data());
    problem_.passed_roots.resize(roots_.size());
    for (std::size_t i = 0; i < roots_.size(); ++i)
      if (roots_[i] != 0) problem_.passed_roots[i] = {t_, dir_, roots_[i] > 0 ? 1 : -1};
  }
  return r;
}

// CVODE's root function failed at the end of an accepted step with an event not defined there (a
// square root of a negative number past some time): CVODE looked for no root inside the step (an
// outside probe's event defined for x < 3.5, x = t: BDF stepped from 1.21 past 10 and the run failed
// at 1.21 without the roots at 2 and 3.4). The step is taken to its end, where the run searches it on
// the interpolant up to the last time the events are defined (RunDriver, DenseEventSearch) and fails
// there. False where the failure is another (the state is left as CVODE returned it).
bool Integration::stepped_past_events(StepResult& r) {
  try {
    if (problem_.error) std::rethrow_exception(problem_.error);
    return false;
  } catch (const ModelError&) {
  } catch (...) {
    return false;
  }
  sun::real tn = t_;
  CVodeGetCurrentTime(mem(), &tn);
  if (!(dir_ * (tn - t_) > 0.0) || CVodeGetDky(mem(), tn, 0, y_.get()) != CV_SUCCESS) return false;
  t_ = tn;
  problem_.error = nullptr;
  r.events_undefined = true;
  return true;
}

// CVODE takes a new largest step (CVodeSetMaxStep) into account when it chooses the step after
// next; the next one, chosen already, is cut to h_max by a stop time h_max past CVODE's own time
// (reset to tf once reached), which ends the step on CVODE's interpolant.
void Integration::bound_step(double h_max) {
  const double hmax = opt_.max_step > 0 ? std::min(h_max, opt_.max_step) : h_max;
  check(CVodeSetMaxStep(mem(), std::isfinite(hmax) ? hmax : 0.0), "CVodeSetMaxStep");
  sun::real next = 0.0;
  if (!std::isfinite(hmax) || CVodeGetCurrentStep(mem(), &next) != CV_SUCCESS || std::abs(next) <= hmax) return;
  sun::real reached = t_;  // CVODE's own time: past t_ after a root it returned
  CVodeGetCurrentTime(mem(), &reached);
  const double stop = reached + dir_ * hmax;
  if (dir_ * (tf_ - stop) <= 0.0) return;
  check(CVodeSetStopTime(mem(), stop), "CVodeSetStopTime");
  bounded_stop_ = true;
}

// Adams' history is the solution y_n and the past right-hand sides: CVODE's Nordsieck array
// holds z_0 = y_n and z_j = h^j p^(j)(t_n) / j! of the polynomial p through y_n whose derivative
// interpolates h f_n, h f_(n-1), ... So a projection y_n + d that keeps the history moves z_0
// alone, and the next step starts from the projected state at its order and step size. (CVODE's
// own projection, BDF's, moves every column by p_j d, since BDF's history is the past solutions;
// it refuses Adams.) z_0 is CVODE's to a nonlinear solver (CVodeGetNonlinearSystemData's ypred,
// between steps the solution just returned); it is moved only if it equals y_n bit for bit.
// Restarts (kMinRestartSteps) only where it is out of reach.
StateMove Integration::how_to_move() {
  sun::real tn = 0.0, gamma = 0.0, rl1 = 0.0;
  N_Vector z0 = nullptr, yn = nullptr, fn = nullptr, z1 = nullptr;
  void* user_data = nullptr;
  history_ = nullptr;
  if (CVodeGetNonlinearSystemData(mem(), &tn, &z0, &yn, &fn, &gamma, &rl1, &z1, &user_data) == CV_SUCCESS &&
      z0 != nullptr && tn == t_) {
    double* z = N_VGetArrayPointer(z0);
    const double* y = state();
    if (z != nullptr && std::equal(y, y + n_, z)) {
      history_ = z;
      return StateMove::kInPlace;
    }
  }
  return steps_since_restart_ >= kMinRestartSteps ? StateMove::kRestart : StateMove::kNot;
}

void Integration::moved(double, bool) {
  const double* y = state();
  if (history_) std::copy(y, y + n_, history_);
  history_ = nullptr;
}

void Integration::restart(double t) {
  if (switch_to_bdf_)
    restart(t, Method::Bdf, "stiff");
  else
    restart(t, Method::Adams, "constraint drift");
}

// A frame re-split (the run driver mapped y_): CVODE restarts there, as its history is in the old
// frame; forward sensitivities cannot follow.
bool Integration::resplit(double t, bool at_start) {
  if (!opt_.sensitivities.empty()) return false;
  if (at_start) return true;  // begin() starts CVODE at the mapped state
  collect_stats();
  ++out_.n_restarts;
  start(t, method_, nullptr);
  return true;
}

}  // namespace cvode

SimulationOutput integrate(const Model& model, const std::vector<double>& params, double t0, double tf,
                           const std::vector<double>& y0, const std::vector<double>& t_eval,
                           const std::vector<EventSpec>& events, const IntegrationOptions& options,
                           const InterruptCheck& interrupted) {
  cvode::Integration integration(model, params, t0, tf, y0, t_eval, events, options, interrupted);
  return integration.run();
}

}  // namespace nonholo
