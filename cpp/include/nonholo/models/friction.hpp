// The unconstrained system with strong viscous friction realizing the constraints
// (Eldering 2016, eqs. (21)-(23); Gzenda-Chhabra eqs. (37)-(40)):
//   q' = v,   G v' + c(q, v) + dV = F - (1/eps) A^T mu (A v - b).
// Stiff for small eps: fast rates are the eigenvalues of mu M / eps.
// eps is the last parameter, after the system's own.
#pragma once

#include "nonholo/model.hpp"

namespace nonholo {

class FrictionModel : public ModelImpl<FrictionModel> {
 public:
  using ModelImpl::ModelImpl;

  std::string kind() const override { return "friction"; }
  int n_states() const override { return 2 * system().n(); }
  int n_extra_params() const override { return 1; }
  bool stiff() const override { return true; }

  template <class S>
  void eval(double t, const S* y, const double* p, S* ydot, MechanicsWork<S>& w) const {
    const int n = system().n();
    const double eps = p[system().n_params()];
    system().evaluate(t, y, y + n, p, w.geo);
    Eigen::Map<const VecX<S>> v(y + n, n);
    Eigen::Map<VecX<S>>(ydot, n) = v;

    factor_metric(w);
    applied_force(w.geo, v, w.r);
    w.tmp_k = w.geo.mu() * (w.geo.A() * v - w.geo.b());
    w.r.noalias() -= (1.0 / eps) * (w.geo.A().transpose() * w.tmp_k);
    Eigen::Map<VecX<S>> vdot(ydot + n, n);
    vdot = w.r;
    w.chol_G.solve_in_place(vdot);
  }

  void check_state(double t, const double* y, const double* p, Workspace& ws) const override;
};

}  // namespace nonholo
