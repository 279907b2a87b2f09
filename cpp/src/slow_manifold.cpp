#include "nonholo/slow_manifold.hpp"

#include <cmath>

#include "nonholo/format.hpp"

#include "nonholo/models/reduced.hpp"

namespace nonholo {

template void slip_coefficients<double, double, double>(const MechanicalSystem&, const double&, const double*,
                                                        const double*, const double*, int, SlowManifoldWork<double>&,
                                                        MatX<double>&);

namespace {

void check_order(int order, const CompiledSlip* compiled, const MechanicalSystem& sys) {
  if (order < 0 || order > kMaxSeriesDegree)
    throw InputError("order must be between 0 and " + std::to_string(kMaxSeriesDegree) + " (got " +
                     std::to_string(order) + ")");
  if (compiled != nullptr && (compiled->order() != order || &compiled->system() != &sys))
    throw InputError("the compiled slow manifold is of order " + std::to_string(compiled->order()) +
                     " or of another system; the model needs order " + std::to_string(order));
}

double eps_of(const MechanicalSystem& sys, const double* p) {
  const double eps = law_scale(p, sys.n_params());
  if (!(eps > 0.0) || !std::isfinite(eps))  // a ModelError, as Friction::check_scale's
    throw ModelError("eps must be a positive finite number (got " + format_number(eps) + ")");
  return eps;
}

}  // namespace

void check_reduced_state(const MechanicalSystem& sys, const Geometry<double>& geo) {
  Ldlt<double> chol_mu;
  if (sys.k() > 0 && !chol_mu.compute(geo.mu()))
    throw ModelError("the friction coefficients mu are not symmetric positive definite at " + describe_point(geo));
}

ReducedModel::ReducedModel(std::shared_ptr<const MechanicalSystem> system, int order,
                           std::shared_ptr<const CompiledSlip> compiled, std::shared_ptr<const LawExpansion> law)
    : ConstrainedModel(std::move(system)), order_(order), compiled_(std::move(compiled)), law_(std::move(law)) {
  check_order(order, compiled_.get(), this->system());
  if (law_) {
    if (compiled_) throw InputError("compiled: the compiled slip is the viscous law's; a law given by tapes has none");
    law_->check(this->system());
  }
  // the null-space path of order 1 solves the viscous law's first slip (voronets_reduced_rate)
  nullspace_ = compiled_ == nullptr && (law_ == nullptr || order == 0) && reduced_nullspace_pays(this->system(), order);
}

void ReducedModel::check_state(double t, const double* y, const double* p, Workspace& ws) const {
  if (law_) {  // the law's own inputs are checked where its slip is solved (ModelError naming the point)
    ConstrainedModel::check_state(t, y, p, ws);
    return;
  }
  eps_of(system(), p);
  ConstrainedModel::check_state(t, y, p, ws);
  check_reduced_state(system(), work(ws).geo);
}

ReducedFrameModel::ReducedFrameModel(std::shared_ptr<const Frame> frame, int order,
                                     std::shared_ptr<const CompiledSlip> compiled)
    : FrameWatchedModel(std::move(frame)), order_(order), compiled_(std::move(compiled)) {
  check_order(order, compiled_.get(), this->system());
  if (system().has_affine())
    throw InputError("the frame form of the reduced model needs linear constraints (A v = 0); use the coordinate "
                     "form for affine ones");
}

void ReducedFrameModel::check_state(double t, const double* y, const double* p, Workspace& ws) const {
  eps_of(system(), p);
  ReducedWork<double>& w = work(ws);
  const int n = system().n(), m = frame_->rank();
  frame_->evaluate(y, p, w.frame);
  w.u = w.frame.X().leftCols(m) * Eigen::Map<const VecX<double>>(y + n, m);
  system().evaluate_dynamics(t, y, w.u.data(), p, w.geo);
  factor_metric(w);
  factor_constraints(w);
  // A Voronets frame is never factored (eval_voronets needs B alone; a split degraded at the start is
  // refused in Python above max |B| = 1e8, frames.py START_GROWTH): its LU's pivots fall like 1 / |B|^2
  // and called a knife edge's frame singular from |B| = 3e6 on, where the Hamel model runs.
  if (!frame_->voronets() && !w.lu.compute(w.frame.X()))
    throw ModelError("the frame is singular at " + describe_point(w.geo));
  check_reduced_state(system(), w.geo);
}

VecX<double> invariance_residual(const MechanicalSystem& sys, const CompiledSlip* compiled, int order, double t,
                                 const double* q, const double* u, const double* p) {
  const int n = sys.n();
  const double eps = eps_of(sys, p);
  check_order(order, compiled, sys);
  ReducedWork<double> w;
  VecX<double> qdot(n), udot(n);
  reduced_velocity_and_acceleration(sys, ReducedSlip{compiled}, order, t, q, u, p, w, qdot, udot);
  // f = G^-1 r and Qmat at (q, v), v = q' (the right-hand side need not leave them behind)
  sys.evaluate_dynamics(t, q, qdot.data(), p, w.geo);
  factor_metric(w);
  factor_constraints(w);
  VecX<double> f = w.geo.r();
  w.chol_G.solve_in_place(f);
  Ldlt<double> chol_mu;
  if (sys.k() > 0 && !chol_mu.compute(w.geo.mu()))
    throw ModelError("the friction coefficients mu are not positive definite at " + describe_point(w.geo));

  using D1 = Dual<double, 1>;
  ReducedWork<D1> wd;
  D1 td(t);
  td.d[0] = 1.0;
  std::vector<D1> qd(n), ud(n);
  for (int i = 0; i < n; ++i) {
    qd[i] = D1(q[i]);
    qd[i].d[0] = qdot(i);
    ud[i] = D1(u[i]);
    ud[i].d[0] = udot(i);
  }
  truncated_slip(sys, compiled, order, td, qd.data(), ud.data(), p, eps, wd.slip, wd.s);
  VecX<double> rhs = f - udot;
  for (int i = 0; i < n; ++i) rhs(i) -= wd.s(i).d[0];
  return w.s - eps * apply_qmat(w, chol_mu, rhs);
}

FibreBase fibre_base(const MechanicalSystem& sys, double t, const double* q0, const double* v0, const double* p,
                     double eps, int order) {
  const int n = sys.n();
  MechanicsWork<double> w;
  ProjectionWork<double> pw;
  Eigen::Map<const VecX<double>> q(q0, n), v(v0, n);

  // u0 = v - G^-1 A^T M^-1 (A v - b): the eps -> 0 base point
  sys.evaluate(t, q0, v0, p, w.geo);
  factor_metric(w);
  factor_constraints(w);
  VecX<double> r = w.geo.A() * v - w.geo.b();
  w.chol_M.solve_in_place(r);
  VecX<double> u = v - w.GinvAT * r;

  SlowManifoldWork<double> sw;
  MatX<double> coeffs;
  slip_coefficients(sys, t, q0, u.data(), p, order, sw, coeffs);
  VecX<double> h = slip_sum(coeffs, eps);
  VecX<double> delta = v - u - h;

  Ldlt<double> chol_mu;
  if (sys.k() > 0 && !chol_mu.compute(w.geo.mu()))
    throw ModelError("the friction coefficients mu are not positive definite at " + describe_point(w.geo));
  VecX<double> z = eps * apply_qmat(w, chol_mu, delta);

  // (d u'/d s) z by one forward dual direction, at (q0, u0) and s = h
  using D1 = Dual<double, 1>;
  MechanicsWork<D1> wd;
  ProjectionWork<D1> pwd;
  VecX<D1> sd(n), vd(n), qd(n), ud(n);
  for (int i = 0; i < n; ++i) {
    sd(i) = D1(h(i));
    sd(i).d[0] = z(i);
    qd(i) = D1(q0[i]);
    vd(i) = D1(u(i)) + sd(i);
  }
  sys.evaluate_projection_at(D1(t), qd.data(), vd.data(), p, wd.geo);
  projected_acceleration(wd, pwd, sd, ud);

  FibreBase base;
  base.q = q + z;
  base.u.resize(n);
  for (int i = 0; i < n; ++i) base.u(i) = u(i) + ud(i).d[0];
  // back onto the constraint set at q_f
  sys.evaluate(t, base.q.data(), base.u.data(), p, w.geo);
  factor_metric(w);
  factor_constraints(w);
  r = w.geo.A() * base.u - w.geo.b();
  w.chol_M.solve_in_place(r);
  base.u -= w.GinvAT * r;
  return base;
}

}  // namespace nonholo
