// Shared behaviour of models whose velocities live on the constraint set A(q) v = b(q, t): the
// part ConstraintSet (model_parts.hpp: the residual, the G-orthogonal projection onto the set,
// the projection of sensitivities), which the model has when the system has constraints, and
// the check of an initial state.
#pragma once

#include "nonholo/model.hpp"

namespace nonholo {

template <class Derived, template <class> class WorkT = MechanicsWork>
class ConstrainedModel : public ModelImpl<Derived, WorkT>, public ConstraintSet {
 public:
  using ModelImpl<Derived, WorkT>::ModelImpl;
  using Work = typename ModelImpl<Derived, WorkT>::Work;

  ModelParts parts() const override {
    ModelParts parts = ModelImpl<Derived, WorkT>::parts();
    if (this->system().k() > 0) parts.constraints = this;
    return parts;
  }

  void constraint_residual(double t, const double* y, const double* p, Workspace& ws, double* residual,
                           double* scale) const override;
  void project(double t, const double* y, const double* p, double* corr, double* err, const double* weights,
               Workspace& ws) const override;
  void check_state(double t, const double* y, const double* p, Workspace& ws) const override;
  void project_sensitivities(double t, const double* y, const double* p, int n_dir, double* const* s,
                             const int* index, const double* weights, Workspace& ws) const override;

 private:
  void project_weighted(double t, const double* y, const double* p, double* corr, double* err, const double* weights,
                        Work& ws) const;
  // Geometry at y and the correction directions N (in w.GinvAT) with A N factored (w.chol_M);
  // `derivatives`: from the full tape (dA/dq for the error's projection), else the dynamics tape.
  MechanicsWork<double>& factor_projection(double t, const double* y, const double* p, const double* weights,
                                           Workspace& ws, bool derivatives = false) const;
};

template <class Derived, template <class> class WorkT>
void ConstrainedModel<Derived, WorkT>::constraint_residual(double t, const double* y, const double* p, Workspace& ws,
                                                     double* residual, double* scale) const {
  const int n = this->system().n();
  MechanicsWork<double>& w = static_cast<Work&>(ws).d;
  this->system().evaluate_constraints(t, y, y + n, p, w.geo);  // A and b only
  Eigen::Map<const VecX<double>> v(y + n, n);
  *residual = (w.geo.A() * v - w.geo.b()).norm();
  *scale = w.geo.A().norm() * v.norm() + w.geo.b().norm();
}

// Projection onto {A(q) v = b(q, t)} correcting v only, orthogonal in CVODE's weighted norm (as
// CPODES, the origin of CVODE's projection, does): with W = diag(weights of the velocities) and
// N = W^-2 A^T, corr_v = -N (A N)^-1 (A v - b), and the error estimate is projected onto the
// linearized constraint A err_v + d/dq(A v - b) err_q = 0 in the same norm. In the metric G
// instead, error would move into states weighted by a tiny absolute tolerance (a ball at rest
// on the table stalls the step size). Without weights (outside CVODE) the projection is
// G-orthogonal.
template <class Derived, template <class> class WorkT>
MechanicsWork<double>& ConstrainedModel<Derived, WorkT>::factor_projection(double t, const double* y, const double* p,
                                                                          const double* weights, Workspace& ws,
                                                                          bool derivatives) const {
  const int n = this->system().n();
  MechanicsWork<double>& w = static_cast<Work&>(ws).d;
  if (derivatives) this->system().evaluate(t, y, y + n, p, w.geo);
  else this->system().evaluate_dynamics(t, y, y + n, p, w.geo);
  if (weights != nullptr) {  // N = W^-2 A^T and its Gram matrix A N, in GinvAT and M
    w.GinvAT = w.geo.A().transpose();
    for (int i = 0; i < n; ++i) w.GinvAT.row(i) /= weights[n + i] * weights[n + i];
    w.M.noalias() = w.geo.A() * w.GinvAT;
    if (!w.chol_M.compute(w.M))
      throw ModelError("the constraint rows are linearly dependent at " + describe_point(w.geo));
  } else {
    factor_metric(w);
    factor_constraints(w);
  }
  return w;
}

template <class Derived, template <class> class WorkT>
void ConstrainedModel<Derived, WorkT>::project(double t, const double* y, const double* p, double* corr, double* err,
                                               const double* weights, Workspace& ws) const {
  if (weights != nullptr) {
    project_weighted(t, y, p, corr, err, weights, static_cast<Work&>(ws));
    return;
  }
  const int n = this->system().n();
  const int ns = this->n_states();
  MechanicsWork<double>& w = factor_projection(t, y, p, weights, ws, err != nullptr);
  Eigen::Map<const VecX<double>> v(y + n, n);
  Eigen::Map<VecX<double>> c(corr, ns);
  c.setZero();
  w.tmp_k = -w.geo.b();
  w.tmp_k.noalias() += w.geo.A() * v;
  w.chol_M.solve_in_place(w.tmp_k);
  c.segment(n, n).noalias() = -w.GinvAT * w.tmp_k;
  if (err == nullptr) return;
  Eigen::Map<VecX<double>> e(err, ns);
  directional_dA(w.geo, e.segment(0, n), w.dA_v);  // (dA/dq . err_q)
  w.tmp_k.noalias() = w.geo.A() * e.segment(n, n);
  w.tmp_k.noalias() += w.dA_v * v;
  w.tmp_k.noalias() -= w.geo.db_dq() * e.segment(0, n);
  w.chol_M.solve_in_place(w.tmp_k);
  e.segment(n, n).noalias() -= w.GinvAT * w.tmp_k;
}

// The weighted projection needs A, b and, for the error, d/dq(A v - b) . err_q only: one sweep
// of the constraint tape with q carrying the direction err_q gives all three, instead of the
// full tape with every dG/dq and dA/dq block.
template <class Derived, template <class> class WorkT>
void ConstrainedModel<Derived, WorkT>::project_weighted(double t, const double* y, const double* p, double* corr,
                                                        double* err, const double* weights, Work& ws) const {
  using D = Dual<double, 1>;
  const int n = this->system().n();
  const int ns = this->n_states();
  MechanicsWork<double>& w = ws.d;
  ws.q.resize(n);
  ws.v.resize(n);
  for (int i = 0; i < n; ++i) {
    ws.q[i] = D(y[i]);
    ws.q[i].d[0] = err != nullptr ? err[i] : 0.0;
    ws.v[i] = D(y[n + i]);
  }
  this->system().evaluate_constraints(t, ws.q.data(), ws.v.data(), p, ws.constraints);
  const Geometry<D>& g = ws.constraints;
  const int k = g.k();
  MatX<double>& A = w.dA_v;  // A in doubles; N = W^-2 A^T in GinvAT, its Gram matrix A N in M
  A.resize(k, n);
  for (int a = 0; a < k; ++a)
    for (int i = 0; i < n; ++i) A(a, i) = g.A()(a, i).v;
  w.GinvAT = A.transpose();
  for (int i = 0; i < n; ++i) w.GinvAT.row(i) /= weights[n + i] * weights[n + i];
  w.M.noalias() = A * w.GinvAT;
  if (!w.chol_M.compute(w.M))
    throw ModelError("the constraint rows are linearly dependent at " + describe_point(g));
  Eigen::Map<const VecX<double>> v(y + n, n);
  Eigen::Map<VecX<double>> c(corr, ns);
  c.setZero();
  w.tmp_k.resize(k);
  w.tmp_k2.resize(k);
  for (int a = 0; a < k; ++a) {  // A v - b and its derivative along err_q
    D s = -g.b()(a);
    for (int i = 0; i < n; ++i) s += g.A()(a, i) * ws.v[i];
    w.tmp_k(a) = s.v;
    w.tmp_k2(a) = s.d[0];
  }
  w.chol_M.solve_in_place(w.tmp_k);
  c.segment(n, n).noalias() = -w.GinvAT * w.tmp_k;
  if (err == nullptr) return;
  Eigen::Map<VecX<double>> e(err, ns);
  w.tmp_k2.noalias() += A * e.segment(n, n);
  w.chol_M.solve_in_place(w.tmp_k2);
  e.segment(n, n).noalias() -= w.GinvAT * w.tmp_k2;
}

template <class Derived, template <class> class WorkT>
void ConstrainedModel<Derived, WorkT>::check_state(double t, const double* y, const double* p, Workspace& ws) const {
  const int n = this->system().n();
  MechanicsWork<double>& w = static_cast<Work&>(ws).d;
  this->system().evaluate_dynamics(t, y, y + n, p, w.geo);
  factor_metric(w);
  factor_constraints(w);
}

// The derivative of the projection y -> y + corr(y) at a point of the constraint set, applied
// to a sensitivity: s_v -= N (A N)^-1 L s, L s = d/de [A(q + e s_q; p + e dp) (v + e s_v) - b]
// by dual numbers (all directions of a chunk in one sweep of the dynamics tape).
template <class Derived, template <class> class WorkT>
void ConstrainedModel<Derived, WorkT>::project_sensitivities(double t, const double* y, const double* p, int n_dir,
                                                             double* const* s, const int* index,
                                                             const double* weights, Workspace& ws) const {
  const int n = this->system().n(), k = this->system().k(), np = this->n_params();
  if (k == 0 || n_dir == 0) return;
  Work& wk = static_cast<Work&>(ws);
  MatX<double> L(k, n_dir);
  wk.y.resize(2 * n);
  wk.p.resize(np);
  MechanicsWork<JacobianScalar>& wj = wk.j;
  for (int c0 = 0; c0 < n_dir; c0 += kJacobianChunk) {
    const int c1 = std::min(n_dir, c0 + kJacobianChunk);
    for (int i = 0; i < 2 * n; ++i) {
      wk.y[i] = JacobianScalar(y[i]);
      for (int j = c0; j < c1; ++j) wk.y[i].d[j - c0] = s[j][i];
    }
    for (int i = 0; i < np; ++i) wk.p[i] = JacobianScalar(p[i]);
    for (int j = c0; j < c1; ++j)
      if (index[j] >= 0) wk.p[index[j]].d[j - c0] = 1.0;
    this->system().evaluate_dynamics(t, wk.y.data(), wk.y.data() + n, wk.p.data(), wj.geo);
    wj.tmp_k = -wj.geo.b();
    wj.tmp_k.noalias() += wj.geo.A() * Eigen::Map<const VecX<JacobianScalar>>(wk.y.data() + n, n);
    for (int j = c0; j < c1; ++j)
      for (int a = 0; a < k; ++a) L(a, j) = wj.tmp_k(a).d[j - c0];
  }
  MechanicsWork<double>& w = factor_projection(t, y, p, weights, ws);
  for (int j = 0; j < n_dir; ++j) {
    w.tmp_k = L.col(j);
    w.chol_M.solve_in_place(w.tmp_k);
    Eigen::Map<VecX<double>>(s[j] + n, n).noalias() -= w.GinvAT * w.tmp_k;
  }
}

}  // namespace nonholo
