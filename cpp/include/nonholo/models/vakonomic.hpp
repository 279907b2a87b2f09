// Vakonomic dynamics (Lewis-Murray 1995, eq. (2.2) as corrected in notes/001 sections 2.3-2.4),
// state (q, v, lambda):
//   G v' + c(q, v) + dV = F + A^T lambda' + K,
//   K_i = lambda_a [ (d_j A_ai - d_i A_aj) v^j + d_i b_a ]      (curvature and affine terms),
//   A v' = db/dq v + db/dt - (dA/dq . v) v.
// The same saddle-point matrix as Lagrange-d'Alembert, solved for (v', lambda'); lambda(0) is
// free initial data. The printed (2.2) drops the curvature term; see docs/errata.md.
#pragma once

#include "nonholo/models/constrained_model.hpp"

namespace nonholo {

class VakonomicModel : public ConstrainedModel<VakonomicModel> {
 public:
  using ConstrainedModel::ConstrainedModel;

  std::string kind() const override { return "vakonomic"; }
  int n_states() const override { return 2 * system().n() + system().k(); }
  // Every block (dA/dq^i enters the curvature term), and the drift control's A and b.
  std::vector<TapeName> rhs_tapes() const override {
    if (system().k() == 0) return {TapeName::Full};
    return {TapeName::Full, TapeName::Constraints};
  }

  template <class S, class P>
  void eval(double t, const S* y, const P* p, S* ydot, MechanicsWork<S>& w) const {
    const int n = system().n(), k = system().k();
    system().evaluate(t, y, y + n, p, w.geo);
    Eigen::Map<const VecX<S>> v(y + n, n);
    Eigen::Map<const VecX<S>> lambda(y + 2 * n, k);
    Eigen::Map<VecX<S>>(ydot, n) = v;

    factor_metric(w);
    factor_constraints(w);
    directional_dA(w.geo, v, w.dA_v);
    // r + K, K = (dA/dq . v)^T lambda - [lambda^T dA/dq^i v]_i + (db/dq)^T lambda
    w.r = w.geo.r();
    w.r.noalias() += w.dA_v.transpose() * lambda;
    w.r.noalias() += w.geo.db_dq().transpose() * lambda;
    for (int i = 0; i < n; ++i) {
      w.tmp_k.noalias() = w.geo.dA(i) * v;
      w.r(i) -= lambda.dot(w.tmp_k);
    }
    VecX<S>& lambda_dot = w.lambda;
    solve_saddle(w, w.r, w.geo.a(), Eigen::Map<VecX<S>>(ydot + n, n), lambda_dot);
    Eigen::Map<VecX<S>>(ydot + 2 * n, k) = lambda_dot;
  }
};

}  // namespace nonholo
