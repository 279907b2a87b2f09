// The formulas every model shares, written once for any scalar type. Notation follows
// DESIGN.md section 1 and papers/notes/003_gzenda_chhabra.md: G the metric, A the constraint
// rows with affine part b (A v = b), mu the friction coefficients, M = A G^-1 A^T,
// r = F - c(q, v) - dV the applied force and a the right-hand side of A v' = a (both from the
// tape). Hot paths write into preallocated work vectors only (no heap allocation per call).
#pragma once

#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>

#include "nonholo/coordinate_partition.hpp"
#include "nonholo/errors.hpp"
#include "nonholo/format.hpp"
#include "nonholo/linalg.hpp"
#include "nonholo/mechanical_system.hpp"

namespace nonholo {

template <class S>
struct MechanicsWork {
  Geometry<S> geo;
  Ldlt<S> chol_G, chol_M;
  VecX<S> r, lambda, tmp_n, tmp_k, tmp_k2;
  MatX<S> GinvAT, M, dA_v;
  GramHalves<S> halves;  // of M = A G^-1 A^T (factor_constraint_halves)
  EliminationWork elimination;  // triangular constraints, in doubles (coordinate_partition.hpp)
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

// (dA/dq . x), the k x n matrix sum_l (dA/dq^l) x^l (full geometry only).
template <class S, class Vec>
void directional_dA(const Geometry<S>& g, const Vec& x, MatX<S>& out) {
  out.setZero(g.k(), g.n());
  for (int l = 0; l < g.n(); ++l) out += g.dA(l) * x(l);
}

// A metric that fails where the coordinates do (Euler angles with two of their axes aligned: a
// Mechanism's disc at yaw z, roll x, spin y lying flat) is singular there, not the body's: the
// message says so (an outside probe was told only that the metric is not positive definite).
// A negative pivot, beyond rounding, is no pose's: a negative mass or inertia among the parameters
// (an outside probe's sleigh at I = -0.5 was told of Euler angles it did not have).
template <class S>
void factor_metric(MechanicsWork<S>& w) {
  const bool definite = w.geo.layout->definite_metric;
  if (!w.chol_G.compute(w.geo.G(), definite, /*own_scale=*/true)) {
    const int p = w.chol_G.failed_pivot();
    const std::string where = describe_point(w.geo) + " (failed pivot " + std::to_string(p);
    // not finite (an outside probe's sqrt(x - 1) at x = 0: NaN was told of Euler angles and a zero mass)
    for (int i = 0; i < w.geo.n(); ++i)
      for (int j = 0; j < w.geo.n(); ++j)
        if (!std::isfinite(value(w.geo.G()(i, j))))
          throw ModelError("the metric is not finite at " + describe_point(w.geo) + ": G[" + std::to_string(i) + ", " +
                           std::to_string(j) + "] = " + format_number(value(w.geo.G()(i, j))) + "; where the "
                           "coordinates are singular (Euler angles with two of their axes aligned), so is the metric: "
                           "take angles regular at that pose, or a quaternion attitude; or the state or the parameters "
                           "are outside its expression's domain (a square root or a log of a negative number, a "
                           "division by zero)");
    bool massless = p >= 0;  // coordinate p's row of the metric is zero: no body moves with it
    for (int j = 0; massless && j < w.geo.n(); ++j) massless = value(w.geo.G()(p, j)) == 0.0;
    if (massless)
      throw ModelError("the metric is singular at " + where + "): coordinate " + std::to_string(p) + " moves no mass "
                       "(its row of the metric is zero), a point no body carries: give it a mass; where a holonomic "
                       "constraint ties it to the others, write it as a function of them; where a constraint fixes "
                       "its velocity, a metric term that vanishes on the constraints (as the Heisenberg system's)");
    if (definite && w.chol_G.failed_ratio() < -1e-8)
      throw ModelError("the metric is not positive definite at " + where + ", negative: the kinetic energy is "
                       "negative along some velocity); a mass or an inertia is negative, or a coupling of the metric "
                       "exceeds them: check the parameters and G");
    throw ModelError(std::string(definite ? "the metric is not positive definite at " : "the metric is singular at ") +
                     where + "); where the coordinates are singular (Euler angles with two of their axes aligned), "
                     "so is the metric: take angles regular at that pose, or a quaternion attitude; or a mass or an "
                     "inertia is zero: check the parameters");
  }
}

// M = A G^-1 A^T factored from the halves of G = L D L^T (linalg.hpp, factor_gram_halves):
// B = L^-1 A^T, C = D^-1 B (w.halves, stored transposed) and M = B^T C (w.M is not formed). Then
// A G^-1 x = C^T (L^-1 x) and G^-1 A^T y = L^-T (C y) cost one triangular sweep each.
// Requires factor_metric first.
template <class S>
void factor_constraint_halves(MechanicsWork<S>& w) {
  if (!factor_gram_halves(w.chol_G, w.geo.A(), w.halves, w.chol_M, w.geo.layout->definite_metric))
    throw ModelError("the constraint rows are linearly dependent (A G^-1 A^T is singular) at " +
                     describe_point(w.geo));
}

// GinvAT = G^-1 A^T and M = A G^-1 A^T, factored. Requires factor_metric first.
// In doubles from the halves: G^-1 A^T = L^-T C, each column by the same operations, in the same
// order, as a full solve of the column of A^T, and M = B^T C (half the products of A G^-1 A^T).
// For the other scalar types (dual numbers, series, traced graphs) as G^-1 A^T by solves and
// M = A (G^-1 A^T), whose traced graphs are smaller for one or two constraints.
template <class S>
void factor_constraints(MechanicsWork<S>& w) {
  if constexpr (std::is_same_v<S, double>) {
    factor_constraint_halves(w);
    w.GinvAT = w.halves.Ct.transpose();
    w.chol_G.backward_in_place(w.GinvAT);
  } else {
    w.GinvAT = w.geo.A().transpose();
    w.chol_G.solve_in_place(w.GinvAT);
    w.M.resize(w.geo.k(), w.geo.k());
    w.M.noalias() = w.geo.A() * w.GinvAT;
    if (w.geo.k() > 0 && !w.chol_M.compute(w.M, w.geo.layout->definite_metric))
      throw ModelError("the constraint rows are linearly dependent (A G^-1 A^T is singular) at " +
                       describe_point(w.geo));
  }
}

// Solves the saddle-point system [G, -A^T; A, 0] [vdot; lambda] = [r; a]:
// vdot = G^-1 (r + A^T lambda), lambda = M^-1 (a - A G^-1 r).
template <class S, class R, class Acc, class Out>
void solve_saddle(MechanicsWork<S>& w, const R& r, const Acc& a, Out&& vdot, VecX<S>& lambda) {
  w.tmp_n = r;
  w.chol_G.solve_in_place(w.tmp_n);  // G^-1 r
  lambda = a;
  lambda.noalias() -= w.geo.A() * w.tmp_n;
  w.chol_M.solve_in_place(lambda);
  vdot = w.tmp_n;
  vdot.noalias() += w.GinvAT * lambda;
}

// The same from the halves (factor_metric and factor_constraint_halves first), with z = L^-1 r:
// lambda = M^-1 (a - C^T z), vdot = L^-T (D^-1 z + C lambda). GinvAT is not needed.
template <class S, class R, class Acc, class Out>
void solve_saddle_halves(MechanicsWork<S>& w, const R& r, const Acc& a, Out&& vdot, VecX<S>& lambda) {
  const int n = w.geo.n(), k = w.geo.k();
  w.tmp_n = r;
  w.chol_G.forward(w.tmp_n.data());                                                // z
  lambda = a;
  rows_times(w.halves.Ct.data(), k, n, w.tmp_n.data(), lambda.data(), true, true);  // a - A G^-1 r
  w.chol_M.solve(lambda.data());
  vdot = w.tmp_n.cwiseProduct(w.chol_G.inverse_pivots());
  rows_transpose_times(w.halves.Ct.data(), k, n, lambda.data(), vdot.data(), true, false);
  w.chol_G.backward(vdot.data());
}

}  // namespace nonholo
