// The unconstrained system with strong friction realizing the constraints (Eldering 2016,
// eqs. (21)-(23); Gzenda-Chhabra eqs. (37)-(40)):
//   q' = v,   G v' + c(q, v) + dV = F + A^T z(A v - b),
// z the friction law of the slip s = A v - b (models/friction_law.hpp; the viscous law
// z = -(1/eps) mu s of the papers). Stiff for small eps: fast rates are the eigenvalues of
// -dz/ds M (mu M / eps for the viscous law). eps is the last parameter, after the system's own.
#pragma once

#include <string_view>

#include "nonholo/model.hpp"
#include "nonholo/models/algebra.hpp"
#include "nonholo/models/friction_law.hpp"
#include "nonholo/models/implicit_jacobian.hpp"

namespace nonholo {

// The friction model's equations, written once for every linear-algebra backend (algebra.hpp):
//   q' = v,   G v' = h,   h = r + A^T z(s),   s = A v - b,
// z the force of the law Law. FrictionModel (dense, below) and the sparse backend
// (sparse_backend.hpp) solve G v' = h, each with its own factorization of G.
template <class LawT>
struct FrictionEquations {
  using Law = LawT;
  static constexpr std::string_view kName = "friction";
  static constexpr int kExtraParams = 1;       // the law's scale eps, after the system's parameters
  static constexpr bool kStiff = true;
  static constexpr bool kSaddle = false;       // v' from G alone
  static constexpr bool kConstrained = false;  // no constraint set: the slip is damped, not removed
  static constexpr bool kReadsSlip = true;     // h reads A v (the Jacobian's structure, sparse_structure.hpp)

  // h = r + A^T z(A v - b) at the point g, with the system's n_params parameters before eps in p;
  // the slip and the force are left in s and z (the implicit Jacobian reads them).
  template <class Algebra, class Geo, class S, class P, class Vk, class Out>
  void right_hand_side(const Geo& g, const S* v, const P* p, int n_params, Vk& s, Vk& z, Out& h) const {
    Algebra::slip(g, v, s);
    z.resize(s.size());
    law.force(LawInputs{Algebra::coefficients(g), law_scale(p, n_params)}, s, z);
    Algebra::constraint_force(g, z, h);
  }
  // The law's inputs: its scale before anything is evaluated, then mu at the point g (`where()`
  // describes it); both throw naming what is wrong.
  void check_scale(const double* p, int n_params) const { law.check_scale(law_scale(p, n_params)); }
  template <class Algebra, class Geo, class Where>
  void check_point(const Geo& g, const double* p, int n_params, Where&& where) const {
    law.check(LawInputs{Algebra::dense_coefficients(g), law_scale(p, n_params)}, where());
  }

  Law law;
};

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
      : Base(std::move(system)), equations_{std::move(law)} {}

  using Equations = FrictionEquations<Law>;
  const Law& law() const { return equations_.law; }
  const Equations& equations() const { return equations_; }

  std::string kind() const override { return std::string(Equations::kName); }
  int n_states() const override { return 2 * system().n(); }
  bool second_order() const override { return true; }  // eval: q' = v
  int n_extra_params() const override { return Equations::kExtraParams; }
  bool stiff() const override { return Equations::kStiff; }
  // The right-hand side, and the implicit Jacobian's tape (BDF's Newton matrix) where the
  // Jacobian takes that path and compiling it pays (compiled_jacobian_pays).
  std::vector<TapeName> rhs_tapes() const override {
    if (implicit() && compiled_jacobian_pays(system())) return {TapeName::Dynamics, TapeName::Jacobian};
    return {TapeName::Dynamics};
  }

  template <class S, class P>
  void eval(double t, const S* y, const P* p, S* ydot, MechanicsWork<S>& w) const {
    const int n = system().n();
    system().evaluate_dynamics(t, y, y + n, p, w.geo);
    std::copy(y + n, y + 2 * n, ydot);
    accelerations(w, y + n, p, Eigen::Map<VecX<S>>(ydot + n, n));
  }

  // v' = G^-1 h (FrictionEquations) at the point where w.geo was evaluated; the slip s = A v - b
  // is left in w.tmp_k, the force z in w.tmp_k2.
  template <class S, class P, class Out>
  void accelerations(MechanicsWork<S>& w, const S* v, const P* p, Out&& vdot) const {
    factor_metric(w);
    equations_.template right_hand_side<DenseAlgebra>(w.geo, v, p, system().n_params(), w.tmp_k, w.tmp_k2, vdot);
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
    accelerations(w.d, y + n, p, w.vdot);
    friction_sensitivities(law(), w.d, w.vdot, eps, w.top, w.bottom);
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
  Equations equations_;
};

}  // namespace nonholo
