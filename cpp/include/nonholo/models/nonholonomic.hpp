// Lagrange-d'Alembert dynamics with linear or affine constraints A(q) v = b(q, t):
//   q' = v,   G v' + c(q, v) + dV = F + A^T lambda,   A v' = db/dq v + db/dt - (dA/dq . v) v,
// the multipliers lambda being algebraic (Lewis-Murray 1995, eq. (2.1); notes/001 section 2.4).
#pragma once

#include <string_view>

#include "nonholo/models/constrained_model.hpp"
#include "nonholo/models/implicit_jacobian.hpp"

namespace nonholo {

// The nonholonomic model's equations, written once for every linear-algebra backend
// (algebra.hpp):   q' = v,   [G, -A^T; A, 0] [v'; lambda] = [r; a],
// a saddle point whose right-hand side is the system's [r; a]. NonholonomicModel (dense, below:
// G and A G^-1 A^T factored, or elimination) and the sparse backend (sparse_backend.hpp: the
// L D L^T of [G, A^T; A, 0], unknowns [v'; -lambda]) each solve it with their own factorization.
struct NonholonomicEquations {
  static constexpr std::string_view kName = "nonholonomic";
  static constexpr int kExtraParams = 0;
  static constexpr bool kStiff = false;
  static constexpr bool kSaddle = true;        // v' and the multipliers from [G, A^T; A, 0]
  static constexpr bool kConstrained = true;   // the velocities stay on A v = b (a constraint set)
  static constexpr bool kReadsSlip = false;

  // The saddle point's right-hand side [r; a] at the point g (v, p, s, z unused: r and a come
  // from the tape).
  template <class Algebra, class Geo, class S, class P, class Vk, class Out>
  void right_hand_side(const Geo& g, const S*, const P*, int, Vk&, Vk&, Out& rhs) const {
    Algebra::saddle_rhs(g, rhs);
  }
  // Nothing beyond the factorization (which names a singular metric or dependent constraints).
  void check_scale(const double*, int) const {}
  template <class Algebra, class Geo, class Where>
  void check_point(const Geo&, const double*, int, Where&&) const {}
};

class NonholonomicModel : public ConstrainedModel<NonholonomicModel> {
 public:
  static constexpr bool kTraceable = true;  // eval traced whole by model.compile() (fused_rhs.hpp)
  // The Jacobian's method is chosen once, from the estimated costs (model.cpp).
  explicit NonholonomicModel(std::shared_ptr<const MechanicalSystem> system)
      : ConstrainedModel(std::move(system)) {}

  using Equations = NonholonomicEquations;
  std::string kind() const override { return std::string(Equations::kName); }
  int n_states() const override { return 2 * system().n(); }
  bool second_order() const override { return true; }  // eval: q' = v
  // The right-hand side and the residual of Adams' drift control (the default method; BDF's
  // Jacobian and projection run in dual numbers or from the full tape).
  std::vector<TapeName> rhs_tapes() const override {
    if (system().k() == 0) return {TapeName::Dynamics};
    return {TapeName::Dynamics, TapeName::Constraints};
  }

  template <class S, class P>
  void eval(double t, const S* y, const P* p, S* ydot, MechanicsWork<S>& w) const {
    const int n = system().n();
    system().evaluate_dynamics(t, y, y + n, p, w.geo);
    std::copy(y + n, y + 2 * n, ydot);
    accelerations(w, Eigen::Map<VecX<S>>(ydot + n, n));
  }

  // By implicit differentiation of the saddle-point solve (implicit_jacobian.hpp), in doubles,
  // where its tape is cheaper than dual numbers through the whole vector field (expression
  // swell in the second derivatives of G can make it 30x the RHS tape: the bicycle).
  void jacobian(double t, const double* y, const double* p, double* J, Workspace& ws) const override {
    if (implicit()) implicit_jacobian(t, y, p, J, ws);
    else jacobian_dual(t, y, p, J, ws);
  }
  bool implicit_jacobian(double t, const double* y, const double* p, double* J, Workspace& ws) const override {
    Work& w = static_cast<Work&>(ws);
    const int n = system().n();
    system().evaluate_jacobian_blocks(t, y, y + n, p, w.d.geo);
    saddle_accelerations(w.d, w.vdot);  // the sensitivities reuse its factors
    nonholonomic_sensitivities(w.d, w.vdot, w.top, w.bottom);
    assemble_second_order_jacobian(n, w.top, J);
    return true;
  }
  double implicit_jacobian_cost() const override;
  double dual_jacobian_cost() const override;
  double rhs_cost_ns() const override;

  // v' and lambda at the point where w.geo was evaluated; lambda is left in w.lambda. In doubles
  // with triangular constraints where that pays, by elimination (coordinate_partition.hpp: G
  // and M are not factored); else, and at a state where a pivot of the elimination is small,
  // as the saddle point.
  template <class S, class Out>
  static void accelerations(MechanicsWork<S>& w, Out&& vdot) {
    if constexpr (std::is_same_v<S, double>) {
      if (const CoordinatePartition* p = w.geo.layout->partition.get()) {
        w.lambda.resize(w.geo.k());
        if (eliminate(*p, w.geo.G().data(), w.geo.A().data(), w.geo.r().data(), w.geo.a().data(), vdot.data(),
                      w.lambda.data(), w.elimination))
          return;
      }
    }
    saddle_accelerations(w, vdot);
  }
  // The same as the saddle point: G and M factored in halves (factor_constraint_halves: w.halves;
  // w.GinvAT is not formed).
  template <class S, class Out>
  static void saddle_accelerations(MechanicsWork<S>& w, Out&& vdot) {
    factor_metric(w);
    factor_constraint_halves(w);
    solve_saddle_halves(w, w.geo.r(), w.geo.a(), vdot, w.lambda);
  }

 private:
  // Chosen on first use (the Jacobian tape of a large system is built only when needed): the
  // same answer from any thread.
  bool implicit() const {
    return implicit_.get([this] { return implicit_jacobian_cost() <= dual_jacobian_cost(); });
  }
  LazyChoice implicit_;
};

}  // namespace nonholo
