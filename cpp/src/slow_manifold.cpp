#include "nonholo/slow_manifold.hpp"

#include "nonholo/models/reduced.hpp"

namespace nonholo {

ReducedModel::ReducedModel(std::shared_ptr<const MechanicalSystem> system, int order)
    : ConstrainedModel(std::move(system)), order_(order) {
  if (order < 0 || order > kMaxSeriesDegree)
    throw InputError("order must be between 0 and " + std::to_string(kMaxSeriesDegree) + " (got " +
                     std::to_string(order) + ")");
}

void ReducedModel::check_state(double t, const double* y, const double* p, Workspace& ws) const {
  const double eps = p[system().n_params()];
  if (!(eps > 0.0) || !std::isfinite(eps))
    throw InputError("eps must be a positive finite number (got " + std::to_string(eps) + ")");
  ConstrainedModel::check_state(t, y, p, ws);
  Ldlt<double> chol_mu;
  if (system().k() > 0 && !chol_mu.compute(work(ws).geo.mu()))
    throw ModelError("the friction coefficients mu are not symmetric positive definite at " +
                     describe_point(work(ws).geo));
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
  sys.evaluate(t, qd.data(), vd.data(), p, wd.geo);
  projected_acceleration(wd, pwd, vd, sd, ud);

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
