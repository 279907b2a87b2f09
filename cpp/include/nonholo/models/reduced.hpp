// Reduced dynamics of order K on the slow manifold of the friction model (Gzenda-Chhabra
// section 3.9, the exact P-projected form; Eldering section 7 for K = 1): state (q, u) with
// u = P v + v_b on the constraint set, the slip truncated after h^(K):
//   q' = v,   u' = projected acceleration at v = u + sum_{k<=K} eps^k h^(k)(t, q, u).
// Not stiff; error O(eps^(K+1)) on bounded intervals against the friction model started on
// the slow manifold. K = 0 is the nonholonomic model. eps is the last parameter.
#pragma once

#include "nonholo/models/constrained_model.hpp"
#include "nonholo/slow_manifold.hpp"

namespace nonholo {

template <class S>
struct ReducedWork : MechanicsWork<S> {
  ProjectionWork<S> proj;
  SlowManifoldWork<S> slow;
  MatX<S> coeffs;
  VecX<S> v, s;
};

class ReducedModel : public ConstrainedModel<ReducedModel, ReducedWork> {
 public:
  ReducedModel(std::shared_ptr<const MechanicalSystem> system, int order);

  std::string kind() const override { return "reduced"; }
  int n_states() const override { return 2 * system().n(); }
  int n_extra_params() const override { return 1; }
  int order() const { return order_; }
  void check_state(double t, const double* y, const double* p, Workspace& ws) const override;

  template <class S, class P>
  void eval(double t, const S* y, const P* p, S* ydot, ReducedWork<S>& w) const {
    const int n = system().n();
    const P eps = p[system().n_params()];
    Eigen::Map<const VecX<S>> u(y + n, n);
    slip_coefficients(system(), t, y, y + n, p, order_, w.slow, w.coeffs);
    w.s = slip_sum(w.coeffs, eps);
    w.v = u + w.s;
    system().evaluate(t, y, w.v.data(), p, w.geo);
    Eigen::Map<VecX<S>>(ydot, n) = w.v;
    projected_acceleration(w, w.proj, w.v, w.s, Eigen::Map<VecX<S>>(ydot + n, n));
  }

 private:
  int order_;
};

}  // namespace nonholo
