// The slow manifold of the friction model and its expansion to any order.
//
// State split (notes/003_gzenda_chhabra.md sections 3.3-3.9, with affine constraints): the
// velocity is v = u + s, where u = P v + v_b lies on the constraint set A u = b
// (v_b = G^-1 A^T M^-1 b) and the slip s = P_perp v - v_b lies in D_perp. The friction model
//     q' = v,   v' = f(q, v, t) - (1/eps) FR# s,   f = G^-1 (F - c - dV),  FR# = G^-1 A^T mu A,
// has the slow manifold s = h_eps(t, q, u) = sum_k eps^k h^(k) (no factorials). Projecting with
// P kills the friction term (P FR# = 0), which gives the exact, non-stiff law of u,
//     u' = P [f - G^-1 (dA_v^T y - dG_v s)] + G^-1 A^T M^-1 (a + dA_v s),   y = M^-1 A s,
// (dG_v = sum_l dG/dq^l v^l, dA_v likewise, a = db/dq v + db/dt - dA_v v), and applying Qmat,
// the inverse of FR# on D_perp, to the s-equation gives the invariance equation
//     s = eps Qmat (f - u' - s').
//
// Expansion: along a slow trajectory through (t0, q0, u0) every quantity is a series in
// (eps, t). The three relations q = q0 + int v, u = u0 + int u', s = eps Qmat(f - u' - s') are
// iterated in bivariate Taylor arithmetic truncated at total degree K; each coefficient
// (a, b) depends only on coefficients of smaller weight 2a + b, so 2K sweeps make every
// coefficient of weight <= 2K exact. The coefficient of eps^k t^0 of s is h^(k)(t0, q0, u0).
// This is the recursion of Gzenda-Chhabra section 3.8 (Eldering section 3.4 in a frame),
// carried out by automatic differentiation, for any metric, potential, affine constraint and
// force F(q, v, t) (velocity- and time-dependent forces enter f and need no special case).
#pragma once

#include <vector>

#include "nonholo/mechanics.hpp"
#include "nonholo/scalar/dual.hpp"
#include "nonholo/scalar/taylor.hpp"

namespace nonholo {

// Extra scratch for the projected acceleration (the halves of factor_halves are in
// MechanicsWork::halves).
template <class S>
struct ProjectionWork {
  MatX<S> dG_v;
  VecX<S> f, g, y, tmp, z;
};

// G and M factored in halves: G = L D L^T (w.chol_G), B = L^-1 A^T and C = D^-1 B (n x k, in
// w.halves, stored transposed), and M = A G^-1 A^T = B^T C factored (w.chol_M). Then
// A G^-1 x = C^T (L^-1 x) and G^-1 A^T y = L^-T (C y) cost one triangular sweep each, and the
// whole factorization k forward sweeps and a symmetric product, where G^-1 A^T (k full solves)
// and A (G^-1 A^T) cost about twice as much. w.GinvAT is not formed.
template <class S>
void factor_halves(MechanicsWork<S>& w, ProjectionWork<S>&) {
  factor_metric(w);
  factor_constraint_halves(w);
}

// out = G^-1 (x + A^T y) = L^-T (D^-1 L^-1 x + C y), with lx = L^-1 x given (G factored in halves).
template <class S, class Lx, class Y, class Out>
void metric_solve_from_halves(const MechanicsWork<S>& w, const ProjectionWork<S>&, const Lx& lx, const Y& y,
                              Out&& out) {
  const RowMatX<S>& Ct = w.halves.Ct;
  out = lx.cwiseProduct(w.chol_G.inverse_pivots());
  rows_transpose_times(Ct.data(), static_cast<int>(Ct.rows()), static_cast<int>(Ct.cols()), y.data(), out.data(),
                       true, false);
  w.chol_G.backward(out.data());
}

// Whether G and M at the point's q are factored in w already (factor_metric, factor_constraints:
// chol_G, chol_M and G^-1 A^T), by the caller, since the geometry's q-blocks were last evaluated.
enum class Factored : bool { no = false, yes = true };

// u' at the point (t, q, v), v = u + s, where w.geo was evaluated with the projection tape
// (MechanicalSystem::evaluate_projection_at: the dynamics blocks and dG_v, dA_v along v). Also
// leaves f = G^-1 (F - c - dV) in pw.f. Factors G and M (factor_constraints: G^-1 A^T formed,
// which the Taylor-mode recursion's Qmat reuses, and which for one or two constraints makes
// smaller compiled graphs than the halves of factor_halves), unless `factored` says the caller
// has (the same q). Allocation-free once the work is sized.
template <class S, class VecS, class Out>
void projected_acceleration(MechanicsWork<S>& w, ProjectionWork<S>& pw, const VecS& s, Out&& udot,
                            Factored factored = Factored::no) {
  const auto& g = w.geo;
  if (factored == Factored::no) {
    factor_metric(w);
    factor_constraints(w);
  }
  pw.y.noalias() = g.A() * s;
  w.chol_M.solve_in_place(pw.y);
  pw.f = g.r();
  w.chol_G.solve_in_place(pw.f);
  pw.g.noalias() = g.dA_v().transpose() * pw.y;
  pw.g.noalias() -= g.dG_v() * s;                    // X
  w.chol_G.solve_in_place(pw.g);
  pw.g = pw.f - pw.g;                                // f - G^-1 X
  // P g + G^-1 A^T M^-1 (a + dA_v s) = g + G^-1 A^T M^-1 (a + dA_v s - A g): one solve with M
  pw.tmp = g.a();
  pw.tmp.noalias() += g.dA_v() * s;
  pw.tmp.noalias() -= g.A() * pw.g;
  w.chol_M.solve_in_place(pw.tmp);
  udot = pw.g;
  udot.noalias() += w.GinvAT * pw.tmp;
}

// The same with s = 0 (v = u on the constraint set): u' = P f + G^-1 A^T M^-1 a, which needs
// only the dynamics blocks (MechanicalSystem::evaluate_dynamics_at).
// G and M are factored in halves (factor_halves): u' = L^-T (D^-1 z + C M^-1 (a - C^T z)), z = L^-1 r.
template <class S, class Out>
void projected_acceleration_on_constraint_set(MechanicsWork<S>& w, ProjectionWork<S>& pw, Out&& udot) {
  const auto& g = w.geo;
  factor_halves(w, pw);
  pw.z = g.r();
  w.chol_G.forward(pw.z.data());
  pw.tmp = g.a();
  rows_times(w.halves.Ct.data(), g.k(), g.n(), pw.z.data(), pw.tmp.data(), true, true);  // a - A f
  w.chol_M.solve(pw.tmp.data());                     // M^-1 (a - A f)
  metric_solve_from_halves(w, pw, pw.z, pw.tmp, udot);
}

template <class S>
struct SlowManifoldWork {
  using T = Taylor2<S>;
  MechanicsWork<S> point;  // order 1 needs no series
  ProjectionWork<S> point_proj;
  Ldlt<S> point_mu;
  MechanicsWork<T> mech;
  ProjectionWork<T> proj;
  Ldlt<T> chol_mu;
  VecX<T> q, u, s, v, udot, rhs, slip, q_next, u_next, qD, vD, sD;
};

// out = Qmat x = G^-1 A^T M^-1 mu^-1 M^-1 A x, with G and M factored in w and mu in chol_mu;
// y is scratch (no allocation once sized).
template <class S, class VecIn, class Out>
void apply_qmat(MechanicsWork<S>& w, const Ldlt<S>& chol_mu, const VecIn& x, VecX<S>& y, Out&& out) {
  y.noalias() = w.geo.A() * x;
  w.chol_M.solve_in_place(y);
  chol_mu.solve_in_place(y);
  w.chol_M.solve_in_place(y);
  out.noalias() = w.GinvAT * y;
}

template <class S>
VecX<S> apply_qmat(MechanicsWork<S>& w, const Ldlt<S>& chol_mu, const VecX<S>& x) {
  VecX<S> y, out(x.size());
  apply_qmat(w, chol_mu, x, y, out);
  return out;
}

// h^(1) = Qmat (f - u') at the point (t, q, u), u on the constraint set (s = 0), where w.geo
// holds (at least) the dynamics blocks: the eps^1 term of the invariance equation involves only
// first derivatives of the data, so it needs no series arithmetic. With u' = f - G^-1 A^T lambda,
// lambda = M^-1 (A f - a) (minus the multiplier of the nonholonomic model) and A G^-1 A^T = M,
//     h^(1) = Qmat G^-1 A^T lambda = G^-1 A^T M^-1 mu^-1 lambda   (Gzenda-Chhabra Remark 12).
// Factors G, M (in w) and mu; leaves M^-1 A h^(1) = M^-1 mu^-1 lambda in pw.y and f in pw.f.
template <class S, class Out>
void first_slip_at(MechanicsWork<S>& w, ProjectionWork<S>& pw, Ldlt<S>& chol_mu, Out&& h1) {
  const auto& g = w.geo;
  factor_metric(w);
  factor_constraints(w);
  if (g.k() > 0 && !chol_mu.compute(g.mu()))
    throw ModelError("the friction coefficients mu are not positive definite at " + describe_point(g));
  pw.f = g.r();
  w.chol_G.solve_in_place(pw.f);
  pw.y = -g.a();
  pw.y.noalias() += g.A() * pw.f;
  w.chol_M.solve_in_place(pw.y);                     // lambda
  chol_mu.solve_in_place(pw.y);
  w.chol_M.solve_in_place(pw.y);
  h1.noalias() = w.GinvAT * pw.y;
}

// The same with G and M factored in halves (factor_halves) and mu in chol_mu, by the caller:
// with z = L^-1 r, y = M^-1 mu^-1 M^-1 (C^T z - a) = M^-1 A h^(1) and h^(1) = L^-T (C y).
// Leaves z in pw.z and y in pw.y. The order-1 reduced model uses it (one factorization for
// h^(1) and the acceleration); first_slip_at stays for the traced graphs, which are smaller
// with G^-1 A^T formed for one or two constraints.
template <class S>
void first_slip_from_halves(MechanicsWork<S>& w, ProjectionWork<S>& pw, Ldlt<S>& chol_mu, VecX<S>& h1) {
  const auto& g = w.geo;
  const int n = g.n(), k = g.k();
  pw.z = g.r();
  w.chol_G.forward(pw.z.data());
  pw.y = -g.a();
  rows_times(w.halves.Ct.data(), k, n, pw.z.data(), pw.y.data(), true, false);  // A f - a
  w.chol_M.solve(pw.y.data());                       // lambda
  chol_mu.solve(pw.y.data());
  w.chol_M.solve(pw.y.data());                       // M^-1 A h^(1)
  h1.resize(n);
  rows_transpose_times(w.halves.Ct.data(), k, n, pw.y.data(), h1.data(), false, false);
  w.chol_G.backward(h1.data());
}

// h^(1) at (t0, q0, u0) into coeffs.col(0). t0 and p are plain numbers or of the scalar type S
// (when traced into a graph).
template <class S, class Time, class Par>
void first_slip_coefficient(const MechanicalSystem& sys, const Time& t0, const S* q0, const S* u0, const Par* p,
                            SlowManifoldWork<S>& w, MatX<S>& coeffs) {
  sys.evaluate_dynamics_at(S(t0), q0, u0, p, w.point.geo);
  first_slip_at(w.point, w.point_proj, w.point_mu, coeffs.col(0));
}

// h^(1..K) at (t0, q0, u0): coeffs is n x K, column k-1 holds h^(k). u0 must satisfy A u0 = b.
template <class S, class Time, class Par>
void slip_coefficients(const MechanicalSystem& sys, const Time& t0, const S* q0, const S* u0, const Par* p, int K,
                       SlowManifoldWork<S>& w, MatX<S>& coeffs) {
  using T = Taylor2<S>;
  const int n = sys.n();
  if (K < 0 || K > kMaxSeriesDegree)
    throw InputError("the slow-manifold order must be between 0 and " + std::to_string(kMaxSeriesDegree));
  coeffs.setZero(n, K);
  if (K == 0) return;
  if (K == 1) return first_slip_coefficient(sys, t0, q0, u0, p, w, coeffs);
  w.q.resize(n);
  w.u.resize(n);
  w.s.resize(n);
  w.qD.resize(n);
  w.vD.resize(n);
  w.sD.resize(n);
  w.q_next.resize(n);
  w.u_next.resize(n);
  for (int i = 0; i < n; ++i) {
    w.q(i) = T(q0[i]);
    w.u(i) = T(u0[i]);
    w.s(i) = T::zero(0);
  }
  w.v = w.u;

  // Sweep j makes the coefficients of weight <= j + 1 exact; those have total degree <= j + 1
  // and come from the data's coefficients of degree <= j, so sweep j runs at degree
  // D = min(j, K - 1) (the series grow by one degree per sweep up to K: about half the cost of
  // running every sweep at degree K, with identical results).
  for (int sweep = 0; sweep < 2 * K; ++sweep) {
    const int D = std::min(sweep, K - 1);
    for (int i = 0; i < n; ++i) {
      w.qD(i) = w.q(i).truncated(D);
      w.vD(i) = w.v(i).truncated(D);
      w.sD(i) = w.s(i).truncated(D);
    }
    T time = T::zero(D);
    time(0, 0) = S(t0);
    if (D > 0) time(0, 1) = S(1.0);
    sys.evaluate_projection_at(time, w.qD.data(), w.vD.data(), p, w.mech.geo);
    w.udot.resize(n);
    projected_acceleration(w.mech, w.proj, w.sD, w.udot);
    if (sys.k() > 0 && !w.chol_mu.compute(w.mech.geo.mu()))
      throw ModelError("the friction coefficients mu are not positive definite at " + describe_point(w.mech.geo));
    w.rhs = w.proj.f - w.udot;
    for (int i = 0; i < n; ++i) w.rhs(i) -= derivative_t(w.s(i)).truncated(D);
    apply_qmat(w.mech, w.chol_mu, w.rhs, w.proj.tmp, w.slip);
    for (int i = 0; i < n; ++i) {
      w.q_next(i) = integral_t(S(q0[i]), w.vD(i), D + 1);
      w.u_next(i) = integral_t(S(u0[i]), w.udot(i), D + 1);
      w.s(i) = times_eps(w.slip(i), D + 1);
    }
    w.q.swap(w.q_next);
    w.u.swap(w.u_next);
    w.v = w.u + w.s;
  }
  for (int k = 1; k <= K; ++k)
    for (int i = 0; i < n; ++i) coeffs(i, k - 1) = w.s(i).at(k, 0);
}

// s = sum_k eps^k h^(k), from the coefficient matrix of slip_coefficients.
template <class S, class E>
VecX<S> slip_sum(const MatX<S>& coeffs, const E& eps) {
  VecX<S> s = VecX<S>::Zero(coeffs.rows());
  E e(1.0);
  for (int k = 0; k < coeffs.cols(); ++k) {
    e *= eps;
    s += e * coeffs.col(k);
  }
  return s;
}

// The series recursion is the heaviest template of the core to compile: its double instance is
// compiled once, in slow_manifold.cpp, and only declared in the other translation units.
extern template void slip_coefficients<double, double, double>(const MechanicalSystem&, const double&, const double*,
                                                               const double*, const double*, int,
                                                               SlowManifoldWork<double>&, MatX<double>&);

// Base point (q_f, u_f) of the fast fibre through (q0, v0), to first order in eps: the point
// of the slow manifold whose trajectory the full one approaches after the initial layer.
// With u0 = P v0 + v_b, delta = v0 - u0 - h_eps (the slip off the manifold) and
// z = eps Qmat delta (the integral of the decaying slip exp(-FR# t/eps) delta):
// q_f = q0 + z, u_f = u0 + (d u'/d s) z, projected onto A(q_f) u = b (error O(eps |delta|^2)).
struct FibreBase {
  VecX<double> q, u;
};
FibreBase fibre_base(const MechanicalSystem& sys, double t, const double* q0, const double* v0, const double* p,
                     double eps, int order);

}  // namespace nonholo
