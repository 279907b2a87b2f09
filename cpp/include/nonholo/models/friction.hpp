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

  template <class S, class P>
  void eval(double t, const S* y, const P* p, S* ydot, MechanicsWork<S>& w) const {
    const int n = system().n();
    const P eps = p[system().n_params()];
    system().evaluate_dynamics(t, y, y + n, p, w.geo);
    Eigen::Map<const VecX<S>> v(y + n, n);
    std::copy(y + n, y + 2 * n, ydot);

    factor_metric(w);
    w.tmp_k = -w.geo.b();
    w.tmp_k.noalias() += w.geo.A() * v;       // A v - b
    w.tmp_k2.noalias() = w.geo.mu() * w.tmp_k;
    w.tmp_k2 *= -1.0 / eps;                   // -(1/eps) mu (A v - b)
    Eigen::Map<VecX<S>> vdot(ydot + n, n);
    vdot = w.geo.r();
    vdot.noalias() += w.geo.A().transpose() * w.tmp_k2;
    w.chol_G.solve_in_place(vdot);
  }

  void check_state(double t, const double* y, const double* p, Workspace& ws) const override;
};

}  // namespace nonholo
