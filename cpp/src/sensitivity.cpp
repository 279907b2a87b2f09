#include "nonholo/sensitivity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "nonholo/errors.hpp"
#include "nonholo/format.hpp"
#include "nonholo/scalar/dual.hpp"
#include "nonholo/sundials/serial_ops.hpp"

namespace nonholo {

namespace {

void check(int flag, const char* function) {
  if (flag < 0)
    throw SolverError(std::string("CVODES sensitivity setup failed in ") + function + " (flag " +
                          std::to_string(flag) + ")",
                      0.0);
}

using EventScalar = Dual<double, 1>;

// g(t, y; p) along one direction: inputs [q, v, t, p] of the event tape seeded by
// (dy, dt, dp), returning the directional derivative.
double event_derivative(const Tape& tape, const MechanicalSystem& sys, const double* params, double t,
                        const double* y, const double* dy, double dt, int parameter) {
  const int n = sys.n();
  std::vector<EventScalar> in(sys.n_inputs()), out(1), work;
  for (int i = 0; i < 2 * n; ++i) {
    in[i] = EventScalar(y[i]);
    in[i].d[0] = dy[i];
  }
  in[2 * n] = EventScalar(t);
  in[2 * n].d[0] = dt;
  for (int i = 0; i < sys.n_params(); ++i) in[2 * n + 1 + i] = EventScalar(params[i]);
  if (parameter >= 0 && parameter < sys.n_params()) in[2 * n + 1 + parameter].d[0] = 1.0;
  tape.eval(in.data(), out.data(), work);
  return out[0].d[0];
}

}  // namespace

SensitivityRun::SensitivityRun(const Model& model, const std::vector<double>& params, const IntegrationOptions& options,
                               const std::vector<EventSpec>& events)
    : model_(model), params_(params), opt_(options), events_(events), ws_(model.workspace()), n_(model.n_states()) {
  for (const SensitivitySpec& s : options.sensitivities) {
    if ((s.parameter >= 0) == (s.state >= 0))
      throw InputError("a sensitivity names either a parameter or an initial state");
    if (s.parameter >= model.n_params())
      throw InputError("sensitivity parameter index " + std::to_string(s.parameter) + " out of range (the model has " +
                       std::to_string(model.n_params()) + " parameters)");
    if (s.state >= n_)
      throw InputError("sensitivity initial-state index " + std::to_string(s.state) + " out of range (the model has " +
                       std::to_string(n_) + " states)");
    if (!s.initial.empty() && static_cast<int>(s.initial.size()) != n_)
      throw InputError("a sensitivity's initial value has " + std::to_string(s.initial.size()) +
                       " entries; the model has " + std::to_string(n_) + " states");
    index_.push_back(s.parameter);
    pbar_.push_back(s.parameter >= 0 && params[s.parameter] != 0.0 ? std::abs(params[s.parameter]) : 1.0);
  }
  for (const EventSpec& ev : events) {
    if (!ev.tape)
      throw InputError("sensitivities at events need symbolic events (nonholo.Event or SymPy expressions), "
                       "not Python callables");
    if (ev.dynamics)
      throw InputError("sensitivities at events need events in (t, q, v): a contact-force margin depends on the "
                       "multipliers (not supported)");
  }
  in_.resize(count());
  out_.resize(count());
}

SensitivityRun::~SensitivityRun() {
  if (yS_ != nullptr) N_VDestroyVectorArray(yS_, count());
}

int SensitivityRun::evaluate(double t, N_Vector y, N_Vector* yS, N_Vector* ySdot) {
  const int ns = count();
  for (int j = 0; j < ns; ++j) {
    in_[j] = N_VGetArrayPointer(yS[j]);
    out_[j] = N_VGetArrayPointer(ySdot[j]);
  }
  model_.directional_derivatives(t, N_VGetArrayPointer(y), params_.data(), ns, in_.data(), index_.data(), out_.data(),
                                 *ws_);
  for (int j = 0; j < ns; ++j)
    for (int i = 0; i < n_; ++i)
      if (!std::isfinite(out_[j][i])) return 1;  // recoverable, as for the state
  return 0;
}

void SensitivityRun::attach(void* cvode_mem, SUNContext ctx, CVSensRhsFn rhs, double t0, const double* y0,
                            bool fixed_point, bool project, const double* yS0) {
  mem_ = cvode_mem;
  const ConstraintSet* constraints = model_.constraints();
  project_ = project && constraints != nullptr;
  const int ns = count();
  sun::VectorPtr tmpl(N_VNew_Serial(n_, ctx));
  sun::use_compiled_ops(tmpl.get());  // the clones too (serial_ops.hpp)
  yS_ = N_VCloneVectorArray(ns, tmpl.get());
  if (yS_ == nullptr) throw SolverError("could not allocate the sensitivity vectors", t0);
  for (int j = 0; j < ns; ++j) {
    double* s = N_VGetArrayPointer(yS_[j]);
    if (yS0 != nullptr) {
      std::copy(yS0 + static_cast<std::size_t>(j) * n_, yS0 + static_cast<std::size_t>(j + 1) * n_, s);
      continue;
    }
    const std::vector<double>& initial = opt_.sensitivities[j].initial;
    if (!initial.empty()) {
      std::copy(initial.begin(), initial.end(), s);
      continue;
    }
    std::fill(s, s + n_, 0.0);
    if (index_[j] < 0) s[opt_.sensitivities[j].state] = 1.0;
  }
  // y0 lies on the constraint set: its admissible perturbations lie on the linearized one.
  if (constraints != nullptr && yS0 == nullptr) {
    for (int j = 0; j < ns; ++j) out_[j] = N_VGetArrayPointer(yS_[j]);
    constraints->project_sensitivities(t0, y0, params_.data(), ns, out_.data(), index_.data(), nullptr, *ws_);
  }
  const int method = opt_.sensitivity_staggered ? CV_STAGGERED : CV_SIMULTANEOUS;
  check(CVodeSensInit(cvode_mem, ns, method, rhs, yS_), "CVodeSensInit");
  check(CVodeSetSensParams(cvode_mem, nullptr, pbar_.data(), nullptr), "CVodeSetSensParams");
  check(CVodeSensEEtolerances(cvode_mem), "CVodeSensEEtolerances");
  check(CVodeSetSensErrCon(cvode_mem, opt_.sensitivity_error_control ? SUNTRUE : SUNFALSE), "CVodeSetSensErrCon");
  if (fixed_point) {  // Adams: the sensitivities iterate like the state (no linear solver)
    nls_.reset(SUNNonlinSol_FixedPointSens(method == CV_SIMULTANEOUS ? ns + 1 : ns, tmpl.get(), 0, ctx));
    if (method == CV_SIMULTANEOUS)
      check(CVodeSetNonlinearSolverSensSim(cvode_mem, nls_.get()), "CVodeSetNonlinearSolverSensSim");
    else
      check(CVodeSetNonlinearSolverSensStg(cvode_mem, nls_.get()), "CVodeSetNonlinearSolverSensStg");
  }
  if (project_) weights_.reset(N_VNew_Serial(n_, ctx));
}

std::vector<double> SensitivityRun::current(double t) {
  interpolate(t);
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(count()) * n_);
  for (int j = 0; j < count(); ++j) {
    const double* s = N_VGetArrayPointer(yS_[j]);
    out.insert(out.end(), s, s + n_);
  }
  return out;
}

void SensitivityRun::interpolate(double t) {
  long steps = 0;
  CVodeGetNumSteps(mem_, &steps);
  if (steps == 0) return;  // at t0: yS_ still holds the initial sensitivities
  if (CVodeGetSensDky(mem_, t, 0, yS_) < 0)
    throw SolverError("CVodeGetSensDky failed at t = " + format_number(t), t);
}

void SensitivityRun::project(double t, const double* y, bool with_weights) {
  if (!project_) return;
  const double* w = nullptr;
  // Before the first step CVODES has no error weights yet: project in the metric (the initial
  // sensitivities are on the linearized constraint already, where every projection agrees).
  long steps = 0;
  CVodeGetNumSteps(mem_, &steps);
  if (with_weights && steps > 0 && CVodeGetErrWeights(mem_, weights_.get()) == CV_SUCCESS)
    w = N_VGetArrayPointer(weights_.get());
  for (int j = 0; j < count(); ++j) out_[j] = N_VGetArrayPointer(yS_[j]);
  model_.constraints()->project_sensitivities(t, y, params_.data(), count(), out_.data(), index_.data(), w, *ws_);
}

void SensitivityRun::record(double t, const double* y, std::vector<double>& out) {
  interpolate(t);
  project(t, y, true);
  for (int j = 0; j < count(); ++j) {
    const double* s = N_VGetArrayPointer(yS_[j]);
    out.insert(out.end(), s, s + n_);
  }
}

void SensitivityRun::record_event(int event, double t, const double* y, std::vector<double>& t_out,
                                  std::vector<double>& y_out) {
  interpolate(t);
  project(t, y, true);
  const EventSpec& ev = events_[event];
  const MechanicalSystem& sys = model_.system();
  f_.resize(n_);
  model_.rhs(t, y, params_.data(), f_.data(), *ws_);
  // g(t, q, q'; p) along (dy, dt, dp). A model whose state holds another velocity (quasi-velocities,
  // a reduced model's u): q' and its derivative from the model's VelocityMap.
  const VelocityMap* map = model_.velocity_map();
  const int n = sys.n();
  std::vector<double> qv, dqv;
  auto derivative = [&](const double* dy, double dt, int parameter) {
    if (map == nullptr) return event_derivative(*ev.tape, sys, params_.data(), t, y, dy, dt, parameter);
    qv.assign(y, y + n);  // [q, q']: q, then q' from the map
    dqv.assign(dy, dy + n);
    qv.resize(2 * n);
    dqv.resize(2 * n);
    map->velocity_derivative(t, y, dy, dt, params_.data(), parameter, qv.data() + n, dqv.data() + n, *ws_);
    return event_derivative(*ev.tape, sys, params_.data(), t, qv.data(), dqv.data(), dt, parameter);
  };
  // An event function tangent to the trajectory (dg/dt = 0) gives its time no derivative: NaN
  // (simulate warns), and the run goes on.
  double gdot = derivative(f_.data(), 1.0, -1);
  if (gdot == 0.0 || !std::isfinite(gdot)) gdot = std::numeric_limits<double>::quiet_NaN();
  for (int j = 0; j < count(); ++j) {
    double* s = N_VGetArrayPointer(yS_[j]);
    const double dt = -derivative(s, 0.0, index_[j]) / gdot;
    t_out.push_back(dt);
    for (int i = 0; i < n_; ++i) y_out.push_back(s[i] + f_[i] * dt);
  }
}

}  // namespace nonholo
