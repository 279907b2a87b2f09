// The formulas every model shares, written once for any scalar type. Notation follows
// DESIGN.md section 1 and papers/notes/003_gzenda_chhabra.md: G the metric, A the constraint
// rows with affine part b (A v = b), mu the friction coefficients, M = A G^-1 A^T.
#pragma once

#include <sstream>
#include <string>

#include "nonholo/errors.hpp"
#include "nonholo/linalg.hpp"
#include "nonholo/mechanical_system.hpp"

namespace nonholo {

template <class S>
struct MechanicsWork {
  Geometry<S> geo;
  Cholesky<S> chol_G, chol_M;
  VecX<S> r, a, lambda, tmp_n, tmp_k;
  MatX<S> GinvAT, M, dA_v;
};

// "q = [..], t = .." for error messages.
template <class S>
std::string describe_point(const Geometry<S>& g) {
  std::ostringstream os;
  os.precision(6);
  os << "q = [";
  for (int i = 0; i < g.n(); ++i) os << (i ? ", " : "") << value(g.in[i]);
  os << "], t = " << value(g.in[2 * g.n()]);
  return os.str();
}

// c(q, v)_i = sum_jk (d_k G_ij - 1/2 d_i G_jk) v^j v^k: the velocity-quadratic part of the
// Euler-Lagrange operator, so that d/dt(dL/dv) - dL/dq = G vdot + c(q, v) + dV.
template <class S, class Vec>
void coriolis(const Geometry<S>& g, const Vec& v, VecX<S>& c) {
  const int n = g.n();
  c.setZero(n);
  for (int l = 0; l < n; ++l) {
    auto dG = g.dG(l);
    c.noalias() += (dG * v) * v(l);    // (dG/dq^l v^l) v
    c(l) -= 0.5 * v.dot(dG * v);       // -1/2 v^T (dG/dq^l) v
  }
}

// Generalized applied force (a covector): F(q, v, t) - c(q, v) - dV(q).
template <class S, class Vec>
void applied_force(const Geometry<S>& g, const Vec& v, VecX<S>& r) {
  coriolis(g, v, r);
  r = g.F() - r - g.dV();
}

// (dA/dq . v), the k x n matrix sum_l (dA/dq^l) v^l.
template <class S, class Vec>
void directional_dA(const Geometry<S>& g, const Vec& v, MatX<S>& out) {
  out.setZero(g.k(), g.n());
  for (int l = 0; l < g.n(); ++l) out.noalias() += g.dA(l) * v(l);
}

// Right-hand side of the differentiated constraint, A vdot = a:
// a = db/dq v + db/dt - (dA/dq . v) v.
template <class S, class Vec>
void constraint_acceleration(const Geometry<S>& g, const Vec& v, MatX<S>& dA_v, VecX<S>& a) {
  directional_dA(g, v, dA_v);
  a = g.db_dq() * v + g.db_dt() - dA_v * v;
}

template <class S>
void factor_metric(MechanicsWork<S>& w) {
  if (!w.chol_G.compute(w.geo.G()))
    throw ModelError("the metric is not positive definite at " + describe_point(w.geo) +
                     " (failed pivot " + std::to_string(w.chol_G.failed_pivot()) + ")");
}

// GinvAT = G^-1 A^T and M = A G^-1 A^T, factored. Requires factor_metric first.
template <class S>
void factor_constraints(MechanicsWork<S>& w) {
  w.GinvAT = w.geo.A().transpose();
  w.chol_G.solve_in_place(w.GinvAT);
  w.M.noalias() = w.geo.A() * w.GinvAT;
  if (w.geo.k() > 0 && !w.chol_M.compute(w.M))
    throw ModelError("the constraint rows are linearly dependent (A G^-1 A^T is singular) at " +
                     describe_point(w.geo));
}

// Solves the saddle-point system [G, -A^T; A, 0] [vdot; lambda] = [r; a]:
// vdot = G^-1 (r + A^T lambda), lambda = M^-1 (a - A G^-1 r).
template <class S, class Out>
void solve_saddle(MechanicsWork<S>& w, const VecX<S>& r, const VecX<S>& a, Out&& vdot, VecX<S>& lambda) {
  w.tmp_n = r;
  w.chol_G.solve_in_place(w.tmp_n);  // G^-1 r
  lambda = a - w.geo.A() * w.tmp_n;
  w.chol_M.solve_in_place(lambda);
  vdot = w.tmp_n + w.GinvAT * lambda;
}

}  // namespace nonholo
