// Reduced dynamics of order K on the slow manifold of a friction model (Gzenda-Chhabra
// section 3.9, the exact P-projected form; Eldering section 7 for K = 1). The slip is truncated
// after h^(K):  v = u + s,  s = sum_{k<=K} eps^k h^(k)(t, q, u),  u' = projected acceleration
// at v (slow_manifold.hpp). Not stiff; error O(eps^(K+1)) on bounded intervals against the
// friction model started on the slow manifold. K = 0 is the nonholonomic model.
//
// The law says what s is, and nothing else differs: the viscous law's h^(k) come from its
// expansion (slow_manifold.hpp, eps the last parameter), a law given by tapes (LawExpansion:
// Coulomb, Stribeck, a tire curve, any Law(...)) from its own (law_slow_manifold.hpp: Newton's
// method and a chord iteration, eps from the law's scale tape of the system's parameters).
//
// Two states:
//   ReducedModel       (q, u), u = P v + v_b in R^n on the constraint set A u = b;
//   ReducedFrameModel  (q, w), w in R^(n-k) the quasi-velocities of a frame X = [X_D | X_C]
//                      adapted to D (linear constraints): u = X_D(q) w, and from
//                      u' = (D_v X_D) w + X_D w',  w' = [X^-1 (u' - (D_v X_D) w)]_D.
// h^(1..K) come from a CompiledSlip (one tape of (q, u, t, p)) when one is given, else from the
// Taylor-mode expansion at every evaluation; order 1 (no series) evaluates h^(1) at (q, u) and
// the acceleration at (q, v) from one split evaluation of the projection tape
// (MechanicalSystem::evaluate_split_base / evaluate_velocity_part). With a CompiledSlip the right-hand side does no
// heap allocation once its workspace is sized (first call).
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "nonholo/frame.hpp"
#include "nonholo/law_slow_manifold.hpp"
#include "nonholo/models/constrained_model.hpp"
#include "nonholo/models/frame_watch.hpp"
#include "nonholo/models/law_scale.hpp"
#include "nonholo/slow_manifold.hpp"
#include "nonholo/slow_manifold_graph.hpp"

namespace nonholo {

// True for the scalar types a law given by tapes is evaluated in (not the tracing scalar of
// model.compile(): its Newton iterations branch on values, so such a model is never fused).
template <class S>
inline constexpr bool kLawScalar = !std::is_same_v<S, Traced>;

struct NoLawWork {};

template <class S>
struct ReducedWork : MechanicsWork<S> {
  ProjectionWork<S> proj;
  SlipWork<S> slip;
  VecX<S> u, v, s, udot;
  Ldlt<S> chol_mu;
  // the parameters chol_mu was factored with, when mu depends on them only (order 1)
  std::vector<double> mu_params;
  // chol_mu holds mu at mu_params (a flag of its own: a system without parameters has an empty
  // mu_params before the first factorization too, and mu = 100 I was taken for factored)
  bool mu_factored = false;
  // frame form
  FrameGeometry<S> frame;
  Lu<S> lu;
  MatX<S> DvX;
  VecX<S> rhs;
  // the Voronets frame's M-free path (voronets_reduced_rate): G X_D, Ghat = X_D^T G X_D factored,
  // and k- and m-vectors
  MatX<S> GX, Ghat;
  Ldlt<S> chol_Ghat;
  VecX<S> tk, tk2, zm, zm2;
  // the slip of a law given by tapes (law_slow_manifold.hpp)
  std::conditional_t<kLawScalar<S>, LawTruncationWork<S>, NoLawWork> law;
};

// True when w.chol_mu already holds mu at these parameters: mu depends on no coordinate and
// was factored with the same (plain-number) parameters. Otherwise records p for the
// factorization the caller makes next.
template <class S, class P>
bool friction_factored(const MechanicalSystem& sys, const P* p, ReducedWork<S>& w) {
  if constexpr (!std::is_same_v<P, double>) {
    return false;
  } else {
    if (sys.friction_depends_on_position()) return false;
    const int np = sys.n_params();
    if (w.mu_factored && std::equal(p, p + np, w.mu_params.begin())) return true;
    w.mu_params.assign(p, p + np);
    w.mu_factored = true;  // by the caller, next (factor_friction clears it when that fails)
    return false;
  }
}

// mu (from w.geo) factored into w.chol_mu, unless friction_factored finds it there already;
// throws ModelError when mu is not positive definite. Requires k > 0.
template <class S, class P>
void factor_friction(const MechanicalSystem& sys, const P* p, ReducedWork<S>& w) {
  if (friction_factored(sys, p, w) || w.chol_mu.compute(w.geo.mu())) return;
  w.mu_factored = false;
  throw ModelError("the friction coefficients mu are not positive definite at " + describe_point(w.geo));
}

// Order 1 (no series): h^(1) needs the geometry at (q, u), the acceleration the geometry at
// (q, v), v = u + eps h^(1), with the same q: one split evaluation of the projection tape (the
// velocity part recomputed at v), G and M factored once, in halves (factor_halves), for both.
// With z = L^-1 r(q, u), lambda = M^-1 (C^T z - a) and y = eps M^-1 mu^-1 lambda = M^-1 A s:
//     s = eps h^(1) = L^-T (C y)                          (first_slip_from_halves),
//     u' = G^-1 (r - X + A^T M^-1 (a + dA_v s - A G^-1 (r - X))),  X = dA_v^T y - dG_v s,
// at (q, v) (projected_acceleration), as L^-T (D^-1 z' + C tmp) with z' = L^-1 (r - X).
template <class S, class P, class OutQ, class OutU>
void first_order_velocity_and_acceleration(const MechanicalSystem& sys, double t, const S* q, const S* u, const P* p,
                                           const P& eps, ReducedWork<S>& w, OutQ&& qdot, OutU&& udot) {
  const int n = sys.n();
  const auto& g = w.geo;
  ProjectionWork<S>& pw = w.proj;
  sys.evaluate_split_base(S(t), q, u, p, w.geo);
  factor_halves(w, pw);
  if (g.k() > 0) factor_friction(sys, p, w);
  first_slip_from_halves(w, pw, w.chol_mu, w.s);
  pw.y = eps * pw.y;                                // M^-1 A s
  w.s = eps * w.s;                                  // s = eps h^(1)
  w.v = Eigen::Map<const VecX<S>>(u, n);
  w.v += w.s;
  qdot = w.v;
  sys.evaluate_velocity_part(S(t), q, w.v.data(), p, w.geo);
  const int k = g.k();
  pw.z = g.r();
  rows_transpose_times(g.dA_v().data(), k, n, pw.y.data(), pw.z.data(), true, true);  // - dA_v^T y
  rows_times(g.dG_v().data(), n, n, w.s.data(), pw.z.data(), true, false);            // r - X
  w.chol_G.forward(pw.z.data());
  pw.tmp = g.a();
  rows_times(g.dA_v().data(), k, n, w.s.data(), pw.tmp.data(), true, false);          // + dA_v s
  rows_times(w.halves.Ct.data(), k, n, pw.z.data(), pw.tmp.data(), true, true);       // - C^T z
  w.chol_M.solve(pw.tmp.data());
  metric_solve_from_halves(w, pw, pw.z, pw.tmp, udot);
}

// The slip of the reduced model: the viscous law's expansion (law null; compiled, when given, its
// tape) or the expansion of a law given by tapes.
struct ReducedSlip {
  const CompiledSlip* compiled = nullptr;
  const LawExpansion* law = nullptr;
};

// q' = v = u + s and u' (into qdot, udot), at (t, q, u).
template <class S, class P, class OutQ, class OutU>
void reduced_velocity_and_acceleration(const MechanicalSystem& sys, const ReducedSlip& slip, int order, double t,
                                       const S* q, const S* u, const P* p, ReducedWork<S>& w, OutQ&& qdot,
                                       OutU&& udot) {
  const int n = sys.n();
  if (order == 0) {  // s = 0, whatever the law: the nonholonomic model, from the dynamics blocks
    w.s.setZero(n);                          // callers read s and v (the frame form, the
    w.v = Eigen::Map<const VecX<S>>(u, n);  // invariance residual)
    qdot = w.v;
    sys.evaluate_dynamics(t, q, w.v.data(), p, w.geo);
    projected_acceleration_on_constraint_set(w, w.proj, udot);
    return;
  }
  if (slip.law != nullptr) {
    if constexpr (kLawScalar<S>) {
      // the base of the split projection tape at (q, u) gives lambda; its velocity part is
      // recomputed at v below, with G and M as the slip factored them
      sys.evaluate_split_base(S(t), q, u, p, w.geo);
      law_truncated_slip(sys, *slip.law, order, t, q, u, p, w, w.law, w.s);
      w.v = Eigen::Map<const VecX<S>>(u, n);
      w.v += w.s;
      qdot = w.v;
      sys.evaluate_velocity_part(S(t), q, w.v.data(), p, w.geo);
      projected_acceleration(w, w.proj, w.s, udot, Factored::yes);
      return;
    } else {
      throw InputError("the reduced model of a law given by tapes cannot be traced");
    }
  }
  const P eps = law_scale(p, sys.n_params());
  if (order == 1 && slip.compiled == nullptr) {
    first_order_velocity_and_acceleration(sys, t, q, u, p, eps, w, qdot, udot);
    return;
  }
  truncated_slip(sys, slip.compiled, order, t, q, u, p, eps, w.slip, w.s);
  w.v = Eigen::Map<const VecX<S>>(u, n);
  w.v += w.s;
  qdot = w.v;
  sys.evaluate_projection_at(S(t), q, w.v.data(), p, w.geo);
  projected_acceleration(w, w.proj, w.s, udot);
}

// The reduced models of orders 0 and 1 in a Voronets frame, with no M = A G^-1 A^T and no
// factorization of G (ReducedFrameModel::eval_voronets). With the split q = (r, s) of the frame
// (r the m free coordinates, s the k solved ones), A = [A_r A_s], X_D = [I; B], B = -A_s^-1 A_r,
// X_C = [0; I] (frame.hpp, whose LU of A_s is reused), every velocity x on the affine set
// A x = c is x = X_D x_r + X_C A_s^-1 c (A X_D = 0, A X_C = A_s), and X_D^T A^T = 0 removes the
// multiplier from G x' = r + A^T lambda. With the reduced metric Ghat = X_D^T G X_D (m x m):
//   nonholonomic acceleration (order 0; Gzenda-Chhabra section 3.9 at s = 0, Eldering section 7):
//       u' = X_D z + u_p,  u_p = X_C A_s^-1 a,  Ghat z = X_D^T (r - G u_p),
//       and the multiplier from the s-rows:  A_s^T lambda = (G u' - r)_s;
//   first slip (Gzenda-Chhabra Remark 12; slow_manifold.hpp, first_slip_at):
//       s = eps h^(1) = eps G^-1 A^T M^-1 mu^-1 l,  l = M^-1 (A G^-1 r - a) = -lambda,
//       is the G-minimum-norm solution of A s = c, c = eps mu^-1 l: with z0 = X_C A_s^-1 c,
//       s = z0 - X_D Ghat^-1 X_D^T G z0, and y = M^-1 A s solves A_s^T y = (G s)_s (G s = A^T y);
//   acceleration at v = u + s (order 1, the P-projected form of Gzenda-Chhabra section 3.9):
//       G u' = (r - X) + A^T lambda2,  A u' = a + dA_v s,  X = dA_v^T y - dG_v s, at (q, v),
//       so w' = u'_r = z2 with Ghat z2 = X_D^T (r - X - G u_p2), u_p2 = X_C A_s^-1 (a + dA_v s).
// w' = u'_r is the frame law w' = [X^-1 (u' - (D_v X_D) w)]_D of this frame (see eval_voronets).
// The dense work is G X_D (n k m), an m x m LDL^T, and k x k triangular solves with the LU of A_s
// that B needed already; the geometry comes from the split projection tape (order 1) or the
// dynamics tape (order 0), as in the coordinate form.

// w.GX = G X_D (n x m) and Ghat = X_D^T G X_D factored into w.chol_Ghat; f holds B and the split.
template <class S>
void factor_reduced_metric(const FrameGeometry<S>& f, ReducedWork<S>& w) {
  const auto& g = w.geo;
  const RowMatMap<S> G = g.G();
  const int n = g.n(), k = g.k(), m = n - k;
  w.GX.resize(n, m);
  for (int j = 0; j < m; ++j) {  // G is symmetric: column j of G X_D from rows of G
    w.GX.col(j) = G.row(f.free[j]).transpose();
    for (int a = 0; a < k; ++a) w.GX.col(j) += f.B(a, j) * G.row(f.solved[a]).transpose();
  }
  w.Ghat.resize(m, m);
  for (int j = 0; j < m; ++j)
    for (int l = 0; l <= j; ++l) {
      S sum = w.GX(f.free[j], l);
      for (int a = 0; a < k; ++a) sum += f.B(a, j) * w.GX(f.solved[a], l);
      w.Ghat(j, l) = sum;
    }
  const bool definite = g.layout->definite_metric;
  if (!w.chol_Ghat.compute(w.Ghat, definite))
    throw ModelError(std::string("the metric restricted to the constraint distribution (X_D^T G X_D) is ") +
                     (definite ? "not positive definite" : "singular") + " at " + describe_point(g));
}

// The part on D of the solution of G x' = rhs + A^T lambda, A x' = c: t = A_s^-1 c and
// z = Ghat^-1 X_D^T (rhs - G X_C t), so that x' = X_D z + X_C t (see above).
template <class S, class Rhs, class C>
void frame_constrained_solve(const FrameGeometry<S>& f, ReducedWork<S>& w, const Rhs& rhs, const C& c, VecX<S>& t,
                             VecX<S>& z) {
  const int k = static_cast<int>(f.solved.size()), m = static_cast<int>(f.free.size());
  t = c;
  if (k > 0) f.lu.solve_in_place(t);
  z.resize(m);
  for (int j = 0; j < m; ++j) {
    S sum = rhs(f.free[j]);
    for (int a = 0; a < k; ++a) sum += f.B(a, j) * rhs(f.solved[a]) - w.GX(f.solved[a], j) * t(a);
    z(j) = sum;
  }
  w.chol_Ghat.solve_in_place(z);
}

// q' = v (into qdot) and w' (into wdot) of the reduced model of order 0 or 1 at (t, q, w) in the
// Voronets frame whose B (and the LU of A_s) f holds; u = X_D w is given.
// With `evaluated`, w.geo already holds the geometry at (t, q, u) (the dynamics blocks for order 0,
// the split projection tape's base for order 1).
template <class S, class P>
void voronets_reduced_rate(const MechanicalSystem& sys, int order, double t, const S* q, const P* p,
                           ReducedWork<S>& w, S* qdot, S* wdot, bool evaluated = false) {
  const int n = sys.n(), k = sys.k(), m = n - k;
  const FrameGeometry<S>& f = w.frame;
  const auto& g = w.geo;
  if (order == 0) {
    if (!evaluated) sys.evaluate_dynamics(t, q, w.u.data(), p, w.geo);
    factor_reduced_metric(f, w);
    frame_constrained_solve(f, w, g.r(), g.a(), w.tk, w.zm);
    for (int i = 0; i < n; ++i) qdot[i] = w.u(i);
    for (int j = 0; j < m; ++j) wdot[j] = w.zm(j);
    return;
  }
  const P eps = law_scale(p, sys.n_params());
  if (!evaluated) sys.evaluate_split_base(S(t), q, w.u.data(), p, w.geo);
  factor_reduced_metric(f, w);
  const RowMatMap<S> G = g.G();
  frame_constrained_solve(f, w, g.r(), g.a(), w.tk, w.zm);  // u0' = X_D zm + X_C tk
  // l = -lambda from A_s^T l = (r - G u0')_s
  w.tk2.resize(k);
  for (int a = 0; a < k; ++a) {
    const int sa = f.solved[a];
    S sum = g.r()(sa);
    for (int j = 0; j < m; ++j) sum -= w.GX(sa, j) * w.zm(j);
    for (int b = 0; b < k; ++b) sum -= G(sa, f.solved[b]) * w.tk(b);
    w.tk2(a) = sum;
  }
  if (k > 0) {
    f.lu.solve_transpose_in_place(w.tk2);
    factor_friction(sys, p, w);
    w.chol_mu.solve_in_place(w.tk2);
    w.tk2 *= S(eps);                                  // c = A s = eps mu^-1 l
    f.lu.solve_in_place(w.tk2);                       // z0 = X_C tk2
  }
  // s = z0 - X_D zeta, zeta = Ghat^-1 X_D^T G z0 = Ghat^-1 (G X_D)_s^T tk2
  w.zm2.resize(m);
  for (int j = 0; j < m; ++j) {
    S sum(0.0);
    for (int a = 0; a < k; ++a) sum += w.GX(f.solved[a], j) * w.tk2(a);
    w.zm2(j) = sum;
  }
  w.chol_Ghat.solve_in_place(w.zm2);
  w.s.resize(n);
  for (int j = 0; j < m; ++j) w.s(f.free[j]) = -w.zm2(j);
  for (int a = 0; a < k; ++a) {
    S sum = w.tk2(a);
    for (int j = 0; j < m; ++j) sum -= f.B(a, j) * w.zm2(j);
    w.s(f.solved[a]) = sum;
  }
  // y = M^-1 A s from A_s^T y = (G s)_s, into tk
  for (int a = 0; a < k; ++a) w.tk(a) = G.row(f.solved[a]).dot(w.s);
  if (k > 0) f.lu.solve_transpose_in_place(w.tk);
  w.v = w.u;
  w.v += w.s;
  for (int i = 0; i < n; ++i) qdot[i] = w.v(i);
  sys.evaluate_velocity_part(S(t), q, w.v.data(), p, w.geo);
  w.rhs = g.r();
  w.rhs.noalias() -= g.dA_v().transpose() * w.tk;
  w.rhs.noalias() += g.dG_v() * w.s;                  // r - X
  w.tk2 = g.a();
  w.tk2.noalias() += g.dA_v() * w.s;                  // a + dA_v s
  frame_constrained_solve(f, w, w.rhs, w.tk2, w.tk, w.zm);
  for (int j = 0; j < m; ++j) wdot[j] = w.zm(j);
}

// Cost model of one right-hand side of the reduced model of this order (model.cpp's constants):
// the tapes it evaluates and its dense solves.
double reduced_rhs_cost_ns(const MechanicalSystem& sys, int order, const CompiledSlip* compiled);

// The tapes reduced_velocity_and_acceleration evaluates in doubles (Model::rhs_tapes): the
// dynamics tape (order 0), the split projection tape (order 1, and every order of a law given by
// tapes, whose own tapes are not the system's), the CompiledSlip's ("slip") and the projection
// tape (order >= 2 compiled), the projection tape alone (Taylor mode, whose sweeps run in series
// arithmetic on the interpreter).
std::vector<TapeName> reduced_rhs_tapes(int order, const CompiledSlip* compiled, bool law);

// Throws ModelError when mu is not symmetric positive definite at the evaluated point.
void check_reduced_state(const MechanicalSystem& sys, const Geometry<double>& geo);

// Residual of the invariance equation s = eps Qmat (f - u' - s') (slow_manifold.hpp) for the
// truncation s = sum_{k<=K} eps^k h^(k) at (t, q, u): O(eps^(K+1)) while the series behaves
// asymptotically. s' is the derivative along the reduced flow, by one forward dual direction.
// p holds the system's parameters then eps.
VecX<double> invariance_residual(const MechanicalSystem& sys, const CompiledSlip* compiled, int order, double t,
                                 const double* q, const double* u, const double* p);

// The VelocityMap of the reduced models (both forms): q' = u + s, the first n entries of the
// right-hand side, and its derivative from the model's directional derivatives; the slip's
// own dependence on t (where the system's force or affine term has one) by a central
// difference, the directional derivatives being in (y, p) only.
void reduced_velocity(const Model& model, double t, const double* y, const double* p, double* u, Workspace& ws);
void reduced_velocity_derivative(const Model& model, double t, const double* y, const double* dy, double dt,
                                 const double* p, int parameter, double* u, double* du, Workspace& ws);

class ReducedModel : public ConstrainedModel<ReducedModel, ReducedWork>, public VelocityMap {
 public:
  static constexpr bool kTraceable = true;  // eval traced whole by model.compile() (fused_rhs.hpp)
  // The viscous law's model (law null; eps its last parameter, after the system's), its slip from
  // `compiled` when given, else by Taylor mode; or the model of a law given by tapes (law: its
  // parameters the system's, the law's scale a function of them; compiled must be null).
  ReducedModel(std::shared_ptr<const MechanicalSystem> system, int order,
               std::shared_ptr<const CompiledSlip> compiled = nullptr, std::shared_ptr<const LawExpansion> law = nullptr);

  std::string kind() const override { return "reduced"; }
  int n_states() const override { return 2 * system().n(); }
  int n_extra_params() const override { return law_ ? 0 : 1; }
  int order() const { return order_; }
  bool compiled() const { return compiled_ != nullptr; }
  // The law given by tapes, null for the viscous law.
  const LawExpansion* law() const { return law_.get(); }
  // Orders 0 and 1, and higher orders with a CompiledSlip (its tape replayed into the trace);
  // not Taylor mode, whose trace is the large graph a CompiledSlip declined to build, nor a law
  // given by tapes above order 0 (its Newton iterations branch on values).
  bool fusable() const override { return order_ == 0 || (law_ == nullptr && (order_ <= 1 || compiled_ != nullptr)); }
  void check_state(double t, const double* y, const double* p, Workspace& ws) const override;
  double rhs_cost_ns() const override;
  ModelParts parts() const override {
    ModelParts parts = ConstrainedModel<ReducedModel, ReducedWork>::parts();
    parts.velocity_map = this;
    return parts;
  }
  void velocity(double t, const double* y, const double* p, double* u, Workspace& ws) const override {
    reduced_velocity(*this, t, y, p, u, ws);
  }
  void velocity_derivative(double t, const double* y, const double* dy, double dt, const double* p, int parameter,
                           double* u, double* du, Workspace& ws) const override {
    reduced_velocity_derivative(*this, t, y, dy, dt, p, parameter, u, du, ws);
  }
  // No drift control by default (Adams, DOP853): the right-hand side's tapes only.
  std::vector<TapeName> rhs_tapes() const override { return reduced_rhs_tapes(order_, compiled_.get(), law_ != nullptr); }

  template <class S, class P>
  void eval(double t, const S* y, const P* p, S* ydot, ReducedWork<S>& w) const {
    const int n = system().n();
    if constexpr (std::is_same_v<S, double> && std::is_same_v<P, double>) {
      if (nullspace_ && eval_nullspace_in_workspace_split(t, y, p, ydot, w)) return;
    }
    reduced_velocity_and_acceleration(system(), {compiled_.get(), law_.get()}, order_, t, y, y + n, p, w,
                                      Eigen::Map<VecX<S>>(ydot, n), Eigen::Map<VecX<S>>(ydot + n, n));
  }

  // The same right-hand side (orders 0 and 1) by the null-space method in the split `solved` of
  // the coordinates (maximal_volume_split): B = -A_s^-1 A_r from A(q), then the M-free solves of
  // voronets_reduced_rate give u'_r = z and, with t = A_s^-1 c of its last solve, u'_s = B z + t
  // (u' = X_D z + X_C t). Equal to eval in exact arithmetic; where k is close to n it needs no
  // factorization of G or M and far fewer operations (the fused trace keeps the smaller of the
  // two, trace_fused). Its trace bounds max|B_aj| by FrameWatch::kResplitGrowth (beyond it the
  // split is ill-conditioned and the fused right-hand side falls back to eval).
  template <class S, class P>
  void eval_nullspace(double t, const S* y, const P* p, S* ydot, ReducedWork<S>& w,
                      const std::vector<int>& solved) const {
    const MechanicalSystem& sys = system();
    const int n = sys.n(), k = sys.k(), m = n - k;
    FrameGeometry<S>& f = w.frame;
    f.solved = solved;
    f.free = free_coordinates(solved, n);
    sys.evaluate_dynamics(t, y, y + n, p, w.geo);  // A(q) (a trace shares it with the rate's own sweep)
    if (split_coefficients(w.geo.A(), f) < 0.0)
      throw ModelError("the solved block of the constraint rows is singular at " + describe_point(w.geo));
    TraceHooks<S>::bounded(f.B.data(), k * m, FrameWatch::kResplitGrowth);
    w.u = Eigen::Map<const VecX<S>>(y + n, n);
    std::vector<S> wdot(m);  // = w.zm (the rate uses w.rhs itself)
    voronets_reduced_rate(sys, order_, t, y, p, w, ydot, wdot.data());
    for (int j = 0; j < m; ++j) ydot[n + f.free[j]] = w.zm(j);
    for (int a = 0; a < k; ++a) {
      S sum = w.tk(a);
      for (int j = 0; j < m; ++j) sum += f.B(a, j) * w.zm(j);
      ydot[n + solved[a]] = sum;
    }
  }

  // Whether eval takes the null-space path in doubles (orders 0 and 1, 0 < k < n, where the
  // operation count of its dense work is below the range-space path's; reduced_nullspace.cpp).
  bool nullspace() const { return nullspace_; }

  // eval_nullspace in doubles, in the split kept in the workspace (w.frame.solved): chosen by
  // maximal_volume_split at the first evaluation, and again where the kept split's max|B_aj|
  // exceeds FrameWatch::kResplitGrowth or its block A_s is singular. The geometry is evaluated
  // once (the split projection tape's base for order 1, the dynamics blocks for order 0: A comes
  // with it). Equal to the range-space path in exact arithmetic, to rounding in doubles. Returns
  // false (the caller takes the range-space path) where no split of A is regular.
  bool eval_nullspace_in_workspace_split(double t, const double* y, const double* p, double* ydot,
                                         ReducedWork<double>& w) const {
    const MechanicalSystem& sys = system();
    const int n = sys.n(), k = sys.k(), m = n - k;
    FrameGeometry<double>& f = w.frame;
    if (order_ == 0) sys.evaluate_dynamics(t, y, y + n, p, w.geo);
    else sys.evaluate_split_base(t, y, y + n, p, w.geo);
    const double growth = static_cast<int>(f.solved.size()) == k ? split_coefficients(w.geo.A(), f) : -1.0;
    if (!(growth >= 0.0 && growth <= FrameWatch::kResplitGrowth)) {
      f.solved = maximal_volume_split(MatX<double>(w.geo.A()), f.solved);
      f.free = free_coordinates(f.solved, n);
      if (static_cast<int>(f.solved.size()) != k || split_coefficients(w.geo.A(), f) < 0.0) {
        f.solved.clear();
        return false;
      }
    }
    w.u = Eigen::Map<const VecX<double>>(y + n, n);
    voronets_reduced_rate(sys, order_, t, y, p, w, ydot, ydot + n, true);  // u'_r = w.zm, t = w.tk
    for (int j = 0; j < m; ++j) ydot[n + f.free[j]] = w.zm(j);
    for (int a = 0; a < k; ++a) {
      double sum = w.tk(a);
      for (int j = 0; j < m; ++j) sum += f.B(a, j) * w.zm(j);
      ydot[n + f.solved[a]] = sum;
    }
    return true;
  }

 protected:
  std::vector<TapeName> own_tape_names() const override;
  const Tape* own_tape(TapeName name) const override;
  // The smaller of the traces of eval and (orders 0 and 1) of eval_nullspace in the maximal-volume
  // split at the point of the trace, for systems with constraints.
  std::shared_ptr<const FusedRhs> trace_fused(double t, const double* y, const double* p) const override;

 private:
  int order_;
  std::shared_ptr<const CompiledSlip> compiled_;
  std::shared_ptr<const LawExpansion> law_;
  bool nullspace_ = false;
};

// True when the null-space evaluation of the reduced model of order 0 or 1 (ReducedModel::
// eval_nullspace_in_workspace_split) needs fewer dense operations than the range-space one.
bool reduced_nullspace_pays(const MechanicalSystem& sys, int order);

class ReducedFrameModel : public FrameWatchedModel<ReducedFrameModel, ReducedWork> {
 public:
  ReducedFrameModel(std::shared_ptr<const Frame> frame, int order,
                    std::shared_ptr<const CompiledSlip> compiled = nullptr);

  std::string kind() const override { return "reduced_frame"; }
  int n_states() const override { return system().n() + frame_->rank(); }
  int n_extra_params() const override { return 1; }
  int order() const { return order_; }
  bool compiled() const { return compiled_ != nullptr; }
  void check_state(double t, const double* y, const double* p, Workspace& ws) const override;
  double rhs_cost_ns() const override;
  // The reduced model's tapes and the frame's: B(q) from A alone (Voronets), X and dX/dq else.
  std::vector<TapeName> rhs_tapes() const override;

  // The frame watch (FrameWatchedModel, models/frame_watch.hpp): a Voronets frame is re-split
  // when max|B_aj| exceeds 10, a frame given by its vectors stops the run when cond_1(X) > 1e6.
  FrameWatchText frame_watch_text() const { return {"reduced model", "w", "use velocities='coordinates'"}; }
  // Events see q' = X_D w + s, with the slip (not the frame's X_D w alone).
  void velocity(double t, const double* y, const double* p, double* u, Workspace& ws) const override {
    reduced_velocity(*this, t, y, p, u, ws);
  }
  void velocity_derivative(double t, const double* y, const double* dy, double dt, const double* p, int parameter,
                           double* u, double* du, Workspace& ws) const override {
    reduced_velocity_derivative(*this, t, y, dy, dt, p, parameter, u, du, ws);
  }

  template <class S, class P>
  void eval(double t, const S* y, const P* p, S* ydot, ReducedWork<S>& w) const {
    const int n = system().n(), m = frame_->rank();
    Eigen::Map<const VecX<S>> wq(y + n, m);
    if (frame_->voronets()) {
      eval_voronets(t, y, p, ydot, w);
      return;
    }
    frame_->evaluate(y, p, w.frame);
    w.u.noalias() = w.frame.X().leftCols(m) * wq;
    w.udot.resize(n);
    reduced_velocity_and_acceleration(system(), {compiled_.get()}, order_, t, y, w.u.data(), p, w,
                                      Eigen::Map<VecX<S>>(ydot, n), w.udot);
    // w' = [X^-1 (u' - (D_v X_D) w)]_D, D_v X_D = sum_l dX_D/dq^l v^l
    w.DvX.setZero(n, m);
    for (int l = 0; l < n; ++l) w.DvX.noalias() += w.frame.dX(l).leftCols(m) * w.v(l);
    w.rhs = w.udot;
    w.rhs.noalias() -= w.DvX * wq;
    if (!w.lu.compute(w.frame.X())) throw ModelError("the frame is singular at " + describe_point(w.geo));
    record_frame_growth(w.frame, w.lu);  // the frame watch
    w.lu.solve_in_place(w.rhs);
    Eigen::Map<VecX<S>>(ydot + n, m) = w.rhs.head(m);
  }

 protected:
  std::vector<TapeName> own_tape_names() const override;
  const Tape* own_tape(TapeName name) const override;

 private:
  // The Voronets frame X = [d/dr + B d/ds | d/ds]: u = X_D w is (w on r, B w on s), D_v X_D
  // has no r-components and X^-1 = [d r | d s - B d r], so w' = [X^-1 (u' - (D_v X_D) w)]_D = u'_r:
  // only B(q) is needed, no dX and no factorization of X. Orders 0 and 1 (a compiled slip or not)
  // take the M-free path of voronets_reduced_rate; higher orders the coordinate form's u'.
  template <class S, class P>
  void eval_voronets(double t, const S* y, const P* p, S* ydot, ReducedWork<S>& w) const {
    const int n = system().n(), m = frame_->rank(), k = n - m;
    frame_->evaluate_B(y, p, w.frame);
    const std::vector<int>&r = w.frame.free, &s = w.frame.solved;  // the run's current split
    w.u.resize(n);
    for (int j = 0; j < m; ++j) w.u(r[j]) = y[n + j];
    for (int a = 0; a < k; ++a) {
      S sum(0.0);
      for (int j = 0; j < m; ++j) sum += w.frame.B(a, j) * y[n + j];
      w.u(s[a]) = sum;
    }
    if (order_ <= 1) {  // no M, no factorization of G (voronets_reduced_rate)
      voronets_reduced_rate(system(), order_, t, y, p, w, ydot, ydot + n);
      return;
    }
    w.udot.resize(n);
    reduced_velocity_and_acceleration(system(), {compiled_.get()}, order_, t, y, w.u.data(), p, w,
                                      Eigen::Map<VecX<S>>(ydot, n), w.udot);
    for (int j = 0; j < m; ++j) ydot[n + j] = w.udot(r[j]);
  }

  int order_;
  std::shared_ptr<const CompiledSlip> compiled_;
};

}  // namespace nonholo
