// The unconstrained system with strong friction realizing the constraints (Eldering 2016,
// eqs. (21)-(23); Gzenda-Chhabra eqs. (37)-(40)):
//   q' = v,   G v' + c(q, v) + dV = F + A^T z(A v - b),
// z the friction law of the slip s = A v - b (models/friction_law.hpp; the viscous law
// z = -(1/eps) mu s of the papers). Stiff for small eps: fast rates are the eigenvalues of
// -dz/ds M (mu M / eps for the viscous law). eps is the last parameter, after the system's own.
#pragma once

#include "nonholo/model.hpp"
#include "nonholo/models/friction_law.hpp"
#include "nonholo/models/implicit_jacobian.hpp"

namespace nonholo {

// Over the law Law (friction_law.hpp): a new law is a new Law type, the model is this one. The law
// object is held (a law with data of its own, e.g. a tape, keeps it there).
template <class LawT = ViscousLaw>
class FrictionModel : public ModelImpl<FrictionModel<LawT>> {
  using Base = ModelImpl<FrictionModel<LawT>>;

 public:
  using Law = LawT;
  using typename Base::Work;
  using Base::system;
  static constexpr bool kTraceable = true;  // eval traced whole by model.compile() (fused_rhs.hpp)
  // The Jacobian's method (implicit differentiation or dual numbers) is chosen once, from the
  // estimated costs (model.cpp), not on every call.
  explicit FrictionModel(std::shared_ptr<const MechanicalSystem> system, Law law = Law())
      : Base(std::move(system)), law_(std::move(law)) {}

  const Law& law() const { return law_; }

  std::string kind() const override { return "friction"; }
  int n_states() const override { return 2 * system().n(); }
  bool second_order() const override { return true; }  // eval: q' = v
  int n_extra_params() const override { return 1; }
  bool stiff() const override { return true; }
  // The right-hand side, and the implicit Jacobian's tape (BDF's Newton matrix) where the
  // Jacobian takes that path and compiling it pays (compiled_jacobian_pays).
  std::vector<TapeName> rhs_tapes() const override {
    if (implicit() && compiled_jacobian_pays(system())) return {TapeName::Dynamics, TapeName::Jacobian};
    return {TapeName::Dynamics};
  }

  template <class S, class P>
  void eval(double t, const S* y, const P* p, S* ydot, MechanicsWork<S>& w) const {
    const int n = system().n();
    const P& eps = law_scale(p, system().n_params());
    system().evaluate_dynamics(t, y, y + n, p, w.geo);
    std::copy(y + n, y + 2 * n, ydot);
    accelerations(w, y + n, eps, Eigen::Map<VecX<S>>(ydot + n, n));
  }

  // v' = G^-1 (r + A^T z(A v - b)) at the point where w.geo was evaluated; the slip s = A v - b
  // is left in w.tmp_k, the force z in w.tmp_k2.
  template <class S, class E, class Out>
  void accelerations(MechanicsWork<S>& w, const S* v_ptr, const E& eps, Out&& vdot) const {
    Eigen::Map<const VecX<S>> v(v_ptr, w.geo.n());
    factor_metric(w);
    w.tmp_k = -w.geo.b();
    w.tmp_k.noalias() += w.geo.A() * v;       // s = A v - b
    w.tmp_k2.resize(w.geo.k());
    law_.force(LawInputs{w.geo.mu(), eps}, w.tmp_k, w.tmp_k2);
    vdot = w.geo.r();
    vdot.noalias() += w.geo.A().transpose() * w.tmp_k2;
    w.chol_G.solve(vdot.data());
  }

  // By implicit differentiation of G v' = r + A^T z(A v - b) (implicit_jacobian.hpp),
  // where its tape is cheaper than dual numbers (as NonholonomicModel::jacobian).
  void jacobian(double t, const double* y, const double* p, double* J, Workspace& ws) const override {
    if (implicit()) implicit_jacobian(t, y, p, J, ws);
    else this->jacobian_dual(t, y, p, J, ws);
  }
  bool implicit_jacobian(double t, const double* y, const double* p, double* J, Workspace& ws) const override {
    Work& w = static_cast<Work&>(ws);
    const int n = system().n();
    const double eps = law_scale(p, system().n_params());
    system().evaluate_jacobian_blocks(t, y, y + n, p, w.d.geo);
    accelerations(w.d, y + n, eps, w.vdot);
    friction_sensitivities(law_, w.d, w.vdot, eps, w.top, w.bottom);
    assemble_second_order_jacobian(n, w.top, J);
    return true;
  }
  double implicit_jacobian_cost() const override;
  double dual_jacobian_cost() const override;
  double rhs_cost_ns() const override;

  void check_state(double t, const double* y, const double* p, Workspace& ws) const override;

 private:
  // Chosen on first use (the Jacobian tape of a large system is built only when needed): the
  // same answer from any thread.
  bool implicit() const {
    return implicit_.get([this] { return implicit_jacobian_cost() <= dual_jacobian_cost(); });
  }
  LazyChoice implicit_;
  Law law_;
};

}  // namespace nonholo
