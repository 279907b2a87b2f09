// The slow manifold of a friction law given by tapes (regularized Coulomb, Stribeck, a tire curve,
// any Law(...); python/nonholo/system/law_slow_manifold.py is its reference, and its docstring the
// derivation): the slip that the reduced model of the law (models/reduced.hpp) adds to u.
//
// The friction model of the law is G v' = r + A^T z, each contact c carrying the force
// z_c = Phi_c(sigma_c / eps) of its slip sigma = A v - b, eps the law's scale (v_s, 1 / stiffness).
// On its slow manifold sigma = sum_k eps^k varsigma_(k-1)(t, q, u), with
//   varsigma_0:  Phi_c(varsigma_0) = -lambda_c per contact, lambda = M^-1 (A G^-1 r - a) the
//                nonholonomic constraint force (minus its multiplier): Newton's method on the law's
//                tape, its Jacobian by forward AD (dual numbers) on the same tape;
//   varsigma_j:  Phi'(varsigma_0) varsigma_j = R_j, linear in varsigma_j with the law's local slope,
//                R_j holding the law's higher derivatives: the chord iteration
//                varsigma <- varsigma + Phi'(varsigma_0)^-1 (M^-1 sigma' - lambda - Phi(varsigma))
//                in bivariate Taylor arithmetic in (eps, tau = t - t0) truncated at total degree
//                K - 1 (the law's tape evaluated on the series gives every derivative it needs),
//                2K - 1 sweeps, each making one more weight 2a + b of the coefficients exact.
// The reduced model integrates (q, u), u on the constraint set A u = b:
//   q' = v = u + s,  s = G^-1 A^T M^-1 sigma,  u' = the projected acceleration at v,
// whatever the law: its right-hand side is written once (models/reduced.hpp), and the law only
// says what s is. The viscous law z = -(1/eps) mu sigma is linear in sigma: its expansion
// (slow_manifold.hpp) solves every order in closed form with mu^-1 and is compiled to a tape of
// (q, u); a Law(...) written as the viscous law gives the same coefficients through this one.
//
// The law enters as tapes built from its SymPy expressions (python/nonholo/models/law_core.py):
// per contact, Phi_c of the inputs [varsigma_c (r_c), q, v, t, p]; the scale eps of the system's
// parameters p; and, for the laws that saturate, the cone's edge L_c = saturation N_c of
// [q, v, t, p] per contact (a necessary bound, L_c at least the law's largest force). The friction
// ratio (law_friction_ratio: |lambda_c| over the law's largest force in its direction) measures the
// distance to the fold of the slow manifold at 1, where Newton's method has no solution (ModelError).
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "nonholo/mechanics.hpp"
#include "nonholo/model.hpp"
#include "nonholo/scalar/dual.hpp"
#include "nonholo/slow_manifold.hpp"
#include "nonholo/tape/tape.hpp"

namespace nonholo {

// The law of a system's contacts as tapes (see the header comment).
struct LawExpansion {
  std::string name;                                // the law's name, for messages
  std::vector<std::shared_ptr<const Tape>> laws;   // per contact: [varsigma_c, q, v, t, p] -> Phi_c
  std::vector<std::vector<int>> rows;              // per contact: its constraint rows
  std::shared_ptr<const Tape> scale;               // [p] -> eps
  std::shared_ptr<const Tape> limits;              // [q, v, t, p] -> L_c per contact (null: none)
  std::vector<char> has_limit;                     // per contact: whether L_c bounds it
  std::vector<char> disc;                          // per contact: the law's forces fill the disc of radius L_c
  // InputError when the tapes do not fit the system (sizes, rows covering 0..k-1 once).
  void check(const MechanicalSystem& sys) const;
};

template <class S>
struct LawSlipWork {
  using T = Taylor2<S>;
  // the leading slip: Newton in doubles per contact
  std::vector<double> din, dout, dwork;
  std::vector<Dual<double, 1>> jin, jout, jwork;
  std::vector<S> sin, sout, swork;
  std::vector<double> qd, ud, pd;  // the point in doubles
  VecX<double> x, res, step, trial, target, lam_value, value, col;
  MatX<double> J, Jinv, slope, slope_inv;
  Lu<double> lu;
  VecX<S> sigma0, F;
  // the series
  MechanicsWork<T> mech;
  ProjectionWork<T> proj;
  VecX<T> Q, U, V, Sg, s, ys, f, lam, rhs, phi, udot;
  std::vector<T> tin, tout, twork, pT;
  MatX<S> coeffs;  // k x K: column j holds varsigma_j
};

// The law's scale eps at the parameters p (of the system).
template <class P>
P law_scale_at(const LawExpansion& law, int n_params, const P* p, std::vector<P>& in, std::vector<P>& out,
               std::vector<P>& work) {
  in.assign(p, p + n_params);
  out.resize(1);
  law.scale->eval(in.data(), out.data(), work);
  return out[0];
}

// The inputs [x, q, v, t, p] of a contact's law tape, x of size r (the caller fills it).
template <class X, class S, class P>
void pack_law_inputs(const MechanicalSystem& sys, int r, const X& t, const S* q, const S* v, const P* p,
                     std::vector<X>& in) {
  const int n = sys.n(), np = sys.n_params();
  in.resize(r + 2 * n + 1 + np);
  for (int i = 0; i < n; ++i) {
    in[r + i] = X(value(q[i]));
    in[r + n + i] = X(value(v[i]));
  }
  in[r + 2 * n] = t;
  for (int i = 0; i < np; ++i) in[r + 2 * n + 1 + i] = X(value(p[i]));
}

// lambda = M^-1 (A G^-1 r - a) with w.geo holding the dynamics blocks at (t, q, u); factors G and M
// (G^-1 A^T in w.GinvAT), f = G^-1 r into f.
template <class S>
void law_multipliers(MechanicsWork<S>& w, VecX<S>& f, VecX<S>& lam) {
  factor_metric(w);
  factor_constraints(w);
  f = w.geo.r();
  w.chol_G.solve_in_place(f);
  lam = -w.geo.a();
  lam.noalias() += w.geo.A() * f;
  w.chol_M.solve_in_place(lam);
}

// The friction ratio of each contact from the values of lambda at (t, q, u), in doubles: |f_c| over
// the law's largest force along f_c / |f_c| (f_c = -lambda_c the force the contact must carry), on
// the ray of slips x d, x >= 0, through the leading slip that carries f_c (or, where none does,
// along Phi_c'(0)^-1 f_c), up to the ray's first peak. The range of the law need not be a disc
// (an elliptic Coulomb law, a law with a local peak such as Stribeck's with a viscous term); the
// ratio reaches 1 at the fold of the slow manifold, and is at least 1 where no slip of the law
// carries f_c. NaN where the law gives no force (a zero slope at zero slip: no load).
void law_friction_ratio(const MechanicalSystem& sys, const LawExpansion& law, double t, const double* q,
                        const double* u, const double* p, const VecX<double>& lam, double* ratio,
                        LawSlipWork<double>& w);

// varsigma_0 of contact c in doubles: Newton's method with a backtracking line search on
// Phi_c(x) = target (the reference's, law_slow_manifold.py), its Jacobian by dual numbers.
// Throws ModelError where the target leaves the friction cone or Newton's method fails. t, q, u, p
// are plain numbers; leaves the Jacobian at the solution in w.J.
void law_leading_slip_contact(const MechanicalSystem& sys, const LawExpansion& law, int c, double t,
                              const double* q, const double* u, const double* p, LawSlipWork<double>& w);

// Phi_c (r_c) and its Jacobian (r_c x r_c) at x, in doubles (inputs packed in w.din from index r).
void law_value_and_jacobian(const Tape& tape, int r, const VecX<double>& x, LawSlipWork<double>& w, VecX<double>* value,
                            MatX<double>* J);

// The same bookkeeping in the scalar type S of a model's evaluation: varsigma_0 (S) from the
// double Newton solution x and one Newton correction in S with the Jacobian at x, which carries the
// derivatives of the dual parts exactly (value unchanged to round-off); a plain copy for doubles.
template <class S, class P>
void law_leading_slip(const MechanicalSystem& sys, const LawExpansion& law, double t, const S* q, const S* u,
                      const P* p, const VecX<S>& lam, LawSlipWork<S>& w, LawSlipWork<double>& dw) {
  const int n = sys.n(), k = sys.k(), np = sys.n_params();
  std::vector<double>&qd = dw.qd, &ud = dw.ud, &pd = dw.pd;
  qd.resize(n);
  ud.resize(n);
  pd.resize(np);
  for (int i = 0; i < n; ++i) {
    qd[i] = value(q[i]);
    ud[i] = value(u[i]);
  }
  for (int i = 0; i < np; ++i) pd[i] = value(p[i]);
  dw.lam_value.resize(k);
  for (int a = 0; a < k; ++a) dw.lam_value(a) = value(lam(a));
  w.sigma0.resize(k);
  w.slope.setZero(k, k);
  for (int c = 0; c < static_cast<int>(law.rows.size()); ++c) {
    const std::vector<int>& rows = law.rows[c];
    const int r = static_cast<int>(rows.size());
    law_leading_slip_contact(sys, law, c, t, qd.data(), ud.data(), pd.data(), dw);
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < r; ++j) w.slope(rows[i], rows[j]) = dw.J(i, j);
    if constexpr (std::is_same_v<S, double>) {
      for (int i = 0; i < r; ++i) w.sigma0(rows[i]) = dw.x(i);
    } else {
      pack_law_inputs(sys, r, S(t), q, u, p, w.sin);
      for (int i = 0; i < n; ++i) {
        w.sin[r + i] = q[i];
        w.sin[r + n + i] = u[i];
      }
      for (int i = 0; i < np; ++i) w.sin[r + 2 * n + 1 + i] = S(p[i]);
      for (int i = 0; i < r; ++i) w.sin[i] = S(dw.x(i));
      w.sout.resize(r);
      law.laws[c]->eval(w.sin.data(), w.sout.data(), w.swork);
      VecX<S>& F = w.F;
      F.resize(r);
      for (int i = 0; i < r; ++i) F(i) = w.sout[i] + lam(rows[i]);  // Phi_c(x) - (-lambda_c)
      dw.lu.compute(dw.J);
      MatX<double>& Jinv = dw.Jinv;
      Jinv.setIdentity(r, r);
      for (int j = 0; j < r; ++j) {
        dw.col = Jinv.col(j);
        dw.lu.solve_in_place(dw.col);
        Jinv.col(j) = dw.col;
      }
      for (int i = 0; i < r; ++i) {
        S sum = S(dw.x(i));
        for (int j = 0; j < r; ++j) sum -= Jinv(i, j) * F(j);
        w.sigma0(rows[i]) = sum;
      }
    }
  }
}

// varsigma_0 .. varsigma_(K-1) at (t0, q0, u0) into w.coeffs (k x K), K >= 1, with lam = lambda
// there (law_multipliers). The series sweeps (K >= 2) are those of the reference.
template <class S, class P>
void law_slip_coefficients(const MechanicalSystem& sys, const LawExpansion& law, double t0, const S* q0,
                           const S* u0, const P* p, const VecX<S>& lam, int K, LawSlipWork<S>& w,
                           LawSlipWork<double>& dw) {
  using T = Taylor2<S>;
  const int n = sys.n(), k = sys.k(), np = sys.n_params();
  if (K < 1 || K > kMaxSeriesDegree)
    throw InputError("the order of the reduced model of a law must be between 0 and " +
                     std::to_string(kMaxSeriesDegree) + " (got " + std::to_string(K) + ")");
  law_leading_slip(sys, law, t0, q0, u0, p, lam, w, dw);
  w.coeffs.setZero(k, K);
  w.coeffs.col(0) = w.sigma0;
  if (K == 1) return;
  const int D = K - 1;
  // the chord matrix Phi'(varsigma_0)^-1 (block-diagonal by contact), in doubles
  w.slope_inv.setIdentity(k, k);
  if (!dw.lu.compute(w.slope)) throw ModelError("the slope of the " + law.name + " law is singular at the leading slip");
  for (int j = 0; j < k; ++j) {
    dw.col = w.slope_inv.col(j);
    dw.lu.solve_in_place(dw.col);
    w.slope_inv.col(j) = dw.col;
  }
  w.Q.resize(n);
  w.U.resize(n);
  w.V.resize(n);
  w.Sg.resize(k);
  w.ys.resize(k);
  w.rhs.resize(k);
  w.phi.resize(k);
  w.udot.resize(n);
  for (int i = 0; i < n; ++i) {
    w.Q(i) = T(q0[i]);
    w.U(i) = T(u0[i]);
  }
  for (int a = 0; a < k; ++a) {
    w.Sg(a) = T::zero(D);
    w.Sg(a).c[0] = w.sigma0(a);
  }
  T time = T::zero(D);
  time(0, 0) = S(t0);
  time(0, 1) = S(1.0);
  std::vector<T>& pT = w.pT;
  pT.resize(np);
  for (int i = 0; i < np; ++i) pT[i] = T(S(p[i]));
  // with dual numbers the chord matrix lacks the slope's dual part: two more sweeps make it exact
  const int sweeps = 2 * K - 1 + (std::is_same_v<S, double> ? 0 : 2);
  auto& g = w.mech.geo;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    sys.evaluate_split_base(time, w.Q.data(), w.U.data(), pT.data(), g);  // G, A at Q
    factor_metric(w.mech);
    factor_constraints(w.mech);
    for (int a = 0; a < k; ++a) w.ys(a) = times_eps(w.Sg(a), D);
    w.mech.chol_M.solve_in_place(w.ys);
    w.s.noalias() = w.mech.GinvAT * w.ys;                       // s = W eps varsigma
    w.V = w.U + w.s;
    sys.evaluate_velocity_part(time, w.Q.data(), w.V.data(), pT.data(), g);
    w.f = g.r();
    w.mech.chol_G.solve_in_place(w.f);
    w.lam = -g.a();
    w.lam.noalias() += g.A() * w.f;
    w.mech.chol_M.solve_in_place(w.lam);                        // lambda along the slow trajectory
    for (int a = 0; a < k; ++a) w.rhs(a) = times_eps(derivative_t(w.Sg(a)), D);
    w.mech.chol_M.solve_in_place(w.rhs);
    w.rhs -= w.lam;                                             // M^-1 sigma' - lambda
    for (int c = 0; c < static_cast<int>(law.rows.size()); ++c) {
      const std::vector<int>& rows = law.rows[c];
      const int r = static_cast<int>(rows.size());
      w.tin.resize(r + 2 * n + 1 + np);
      for (int i = 0; i < r; ++i) w.tin[i] = w.Sg(rows[i]);
      for (int i = 0; i < n; ++i) {
        w.tin[r + i] = w.Q(i);
        w.tin[r + n + i] = w.V(i);
      }
      w.tin[r + 2 * n] = time;
      for (int i = 0; i < np; ++i) w.tin[r + 2 * n + 1 + i] = pT[i];
      w.tout.resize(r);
      law.laws[c]->eval(w.tin.data(), w.tout.data(), w.twork);
      for (int i = 0; i < r; ++i) w.phi(rows[i]) = w.tout[i];
    }
    w.rhs -= w.phi;
    for (int a = 0; a < k; ++a) {
      T sum = w.Sg(a);
      for (int b = 0; b < k; ++b)
        if (w.slope_inv(a, b) != 0.0) sum += w.rhs(b) * w.slope_inv(a, b);
      w.Sg(a) = sum.truncated(D);
    }
    if (sweep + 1 == sweeps) break;  // the last sweep's q and u would not be read
    projected_acceleration(w.mech, w.proj, w.s, w.udot, Factored::yes);  // G, M at Q: this sweep's
    for (int i = 0; i < n; ++i) {
      w.Q(i) = integral_t(S(q0[i]), w.V(i), D);
      w.U(i) = integral_t(S(u0[i]), w.udot(i), D);
    }
  }
  for (int j = 0; j < K; ++j)
    for (int a = 0; a < k; ++a) w.coeffs(a, j) = w.Sg(a).at(j, 0);
}

// The truncated slip s = G^-1 A^T M^-1 sum_(j<K) eps^(j+1) varsigma_j at (t, q, u), K = order >= 1,
// into s, for the reduced model (models/reduced.hpp): w.geo holds the split projection tape's base
// at (t, q, u) on entry (MechanicalSystem::evaluate_split_base), and G and M are factored in w on
// return (law_multipliers), as the reduced model's acceleration at v = u + s reads them. f, lam
// and sigma are scratch; pin, pout, pwork the scale tape's in doubles, sin, sout, swork in S.
template <class S>
struct LawTruncationWork {
  LawSlipWork<S> slip;
  LawSlipWork<double> dslip;  // the Newton iterations (doubles)
  VecX<S> sigma, f, lam;
  std::vector<double> pin, pout, pwork;
  std::vector<S> sin, sout, swork;
};

template <class S, class P>
void law_truncated_slip(const MechanicalSystem& sys, const LawExpansion& law, int order, double t, const S* q,
                        const S* u, const P* p, MechanicsWork<S>& w, LawTruncationWork<S>& lw, VecX<S>& s) {
  law_multipliers(w, lw.f, lw.lam);
  law_slip_coefficients(sys, law, t, q, u, p, lw.lam, order, lw.slip, lw.dslip);
  S eps;
  if constexpr (std::is_same_v<P, double>) eps = S(law_scale_at(law, sys.n_params(), p, lw.pin, lw.pout, lw.pwork));
  else eps = law_scale_at(law, sys.n_params(), p, lw.sin, lw.sout, lw.swork);
  lw.sigma.setZero(sys.k());
  S e(1.0);
  for (int j = 0; j < order; ++j) {
    e = e * eps;
    lw.sigma += e * lw.slip.coeffs.col(j);
  }
  w.chol_M.solve_in_place(lw.sigma);
  s.noalias() = w.GinvAT * lw.sigma;  // s = G^-1 A^T M^-1 sigma
}

// Compiled once, in law_slow_manifold.cpp, for the scalars of the reduced model's values, Jacobian
// and parameter sensitivities (its series arithmetic then keeps that unit's inlining, and the
// reduced model's unit does not compile it again).
#define NONHOLO_LAW_TRUNCATED_SLIP(S, P)                                                                        \
  template void law_truncated_slip<S, P>(const MechanicalSystem&, const LawExpansion&, int, double, const S*, \
                                         const S*, const P*, MechanicsWork<S>&, LawTruncationWork<S>&, VecX<S>&)
extern NONHOLO_LAW_TRUNCATED_SLIP(double, double);
extern NONHOLO_LAW_TRUNCATED_SLIP(JacobianScalar, double);
extern NONHOLO_LAW_TRUNCATED_SLIP(JacobianScalar, JacobianScalar);

// Queries of the law at a point, in doubles: its scale eps at the system's parameters p; the
// friction ratio |lambda_c| / L_c per contact at (t, q, u) (NaN where the law does not saturate);
// h^(1..K) (K x n, row-major into h), the slip s = sum_k eps^k h^(k), h^(k) = W varsigma_(k-1),
// W = G^-1 A^T M^-1, at (t, q, u).
double law_scale_value(const MechanicalSystem& sys, const LawExpansion& law, const double* p);
void law_friction_ratio_at(const MechanicalSystem& sys, const LawExpansion& law, double t, const double* q,
                           const double* u, const double* p, double* ratio);

// The fold event of a law's reduced model: threshold - the largest friction ratio over the contacts
// at the state y = [q, u] (NaN ratios left out), evaluated in C++ for every run of a batch with its
// own parameters p (EventSpec::state_function).
struct LawFoldEvent {
  std::shared_ptr<const MechanicalSystem> system;
  std::shared_ptr<const LawExpansion> law;
  double threshold = 1.0;
  double operator()(double t, const double* y, const double* p) const;
};
void law_slip_terms(const MechanicalSystem& sys, const LawExpansion& law, double t, const double* q, const double* u,
                    const double* p, int K, double* h);

}  // namespace nonholo
