// Jacobians of the nonholonomic and friction vector fields by implicit differentiation, in
// doubles: the expression blocks (G, A, b, mu, r, a and their derivatives in q and v) come from
// one sweep of the system's Jacobian tape, and the linear algebra of the model is differentiated
// by hand, so no dual number passes through a factorization.
//
// Nonholonomic (saddle point K [v'; lambda] = [r; a], K = [G, -A^T; A, 0]): for each state y_j,
//   K [dv'; dlambda] = [dr - dG v' + dA^T lambda;  da - dA v'],
// one factorization of K (those of G and M = A G^-1 A^T) for all 2n columns.
// Friction (G v' = r + A^T z, z the law's force of the slip s = A v - b, friction_law.hpp): for
// each state y_j,
//   G dv' = dr - dG v' + dA^T z + A^T dz,   dz = dz/ds (dA v + A dv - db) + dz/dmu dmu.
#pragma once

#include "nonholo/mechanics.hpp"
#include "nonholo/models/friction_law.hpp"

namespace nonholo {

// J (2n x 2n, column-major) of y' = [v, v'(q, v)] from dv'/dq in the first n columns of X and
// dv'/dv in the last n (X is n x 2n).
inline void assemble_second_order_jacobian(int n, const MatX<double>& X, double* J) {
  Eigen::Map<MatX<double>> Jm(J, 2 * n, 2 * n);
  Jm.setZero();
  for (int i = 0; i < n; ++i) Jm(i, n + i) = 1.0;
  Jm.bottomRows(n) = X;
}

// Each nonzero (i, j) of the derivative block d along q^l, with its value x: f(l, i, j, x),
// direction by direction (JacobianLayout: O(nonzeros), not the n^3 entries of dense blocks).
template <class F>
void for_each_nonzero(const Geometry<double>& g, const DerivativePattern& d, F&& f) {
  const double* x = g.values(d);
  const int n = g.n();
  for (int l = 0; l < n; ++l)
    for (int e = d.start[l]; e < d.start[l + 1]; ++e) f(l, d.row[e], d.col[e], x[e]);
}

// dv'/d[q, v] of the nonholonomic model at the point where w.geo holds the Jacobian tape, with
// v' and lambda already solved (vdot, w.lambda) and G, M factored in halves
// (factor_constraint_halves: w.halves). top, bottom: scratch.
inline void nonholonomic_sensitivities(MechanicsWork<double>& w, const VecX<double>& vdot, MatX<double>& top,
                                       MatX<double>& bottom) {
  const Geometry<double>& g = w.geo;
  const JacobianLayout& J = *g.jacobian;
  const int n = g.n(), k = g.k();
  top.resize(n, 2 * n);
  bottom.resize(k, 2 * n);
  top.leftCols(n) = g.dr_dq();
  top.rightCols(n) = g.dr_dv();
  bottom.leftCols(n) = g.da_dq();
  bottom.rightCols(n) = g.da_dv();
  // column l: - dG_l v' + dA_l^T lambda, and - dA_l v'
  for_each_nonzero(g, J.dG, [&](int l, int i, int j, double x) { top(i, l) -= x * vdot[j]; });
  for_each_nonzero(g, J.dA, [&](int l, int a, int j, double x) {
    top(j, l) += x * w.lambda[a];
    bottom(a, l) -= x * vdot[j];
  });
  // [G, -A^T; A, 0]^-1 on all columns: X = G^-1 top + G^-1 A^T M^-1 (bottom - A G^-1 top)
  // = L^-T (D^-1 Z + C M^-1 (bottom - C^T Z)), Z = L^-1 top (A G^-1 = C^T L^-1).
  w.chol_G.forward_in_place(top);
  if (k > 0) {
    bottom.noalias() -= w.halves.Ct * top;
    w.chol_M.solve_in_place(bottom);
  }
  const VecX<double>& d_inv = w.chol_G.inverse_pivots();
  for (int c = 0; c < 2 * n; ++c) top.col(c).array() *= d_inv.array();
  if (k > 0) top.noalias() += w.halves.Ct.transpose() * bottom;
  w.chol_G.backward_in_place(top);
}

// dv'/d[q, v] of the friction model over the law Law; w.geo holds the Jacobian tape, G is factored,
// vdot solved, and the slip s and force z left in w.tmp_k and w.tmp_k2 (FrictionModel::accelerations).
// Every product writes into preallocated storage (w.dA_v, top, scratch): no temporary is
// allocated per call.
template <class Law>
void friction_sensitivities(const Law& law, MechanicsWork<double>& w, const VecX<double>& vdot, double eps,
                            MatX<double>& top, MatX<double>& scratch) {
  const Geometry<double>& g = w.geo;
  const JacobianLayout& J = *g.jacobian;
  const int n = g.n(), k = g.k();
  top.resize(n, 2 * n);
  top.leftCols(n) = g.dr_dq();
  top.rightCols(n) = g.dr_dv();
  if (k > 0) {
    const Eigen::Map<const VecX<double>> v(g.in.data() + n, n);
    MatX<double>& ds = w.dA_v;                 // ds/d[q, v]: column l = dA_l v - db_l, then A
    ds.setZero(k, 2 * n);
    for_each_nonzero(g, J.dA, [&](int l, int a, int j, double x) { ds(a, l) += x * v[j]; });
    for_each_nonzero(g, J.db, [&](int l, int a, int, double x) { ds(a, l) -= x; });
    ds.rightCols(n) = g.A();
    law.derivative(LawInputs{g.mu(), eps}, w.tmp_k, ds,
                    [&](auto&& f) { for_each_nonzero(g, J.dmu, f); }, scratch);  // dz/d[q, v]
    top.noalias() += g.A().transpose() * scratch;
    for_each_nonzero(g, J.dA, [&](int l, int a, int j, double x) { top(j, l) += x * w.tmp_k2[a]; });
  }
  for_each_nonzero(g, J.dG, [&](int l, int i, int j, double x) { top(i, l) -= x * vdot[j]; });
  w.chol_G.solve_in_place(top);
}

}  // namespace nonholo
