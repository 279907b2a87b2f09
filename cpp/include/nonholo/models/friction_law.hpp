// The friction law of a friction model: the force z on the constraint rows as a function of the
// slip s = A v - b (the velocity the constraints forbid) and the law's inputs at the point: the
// system's friction coefficients mu (k x k, from its tape), the law's scale eps (the model's extra
// parameter, after the system's own) and, for the laws that need one, the normal load N per row.
// The friction model is written over a law (models/friction.hpp):
//   q' = v,   G v' = r + A^T z(s),   s = A v - b,
// and the law is the only unit that says what z is. A law provides
//   force(in, s, z)                 z(s), in any scalar type (doubles, dual numbers, traced
//                                   graphs), with mu dense (RowMatMap) or sparse (SparseRows);
//   derivative(in, s, ds, dmu, dz)  dz = dz/ds ds + dz/dmu dmu, column by column, in doubles
//                                   (the implicit Jacobian, implicit_jacobian.hpp);
//   slope(in, D)                    dz/ds (k x k): block-diagonal by contact for a law that
//                                   couples the rows of one contact (isotropic Coulomb), diagonal
//                                   for a law row by row;
//   check_scale(eps), check(in, where)  throw when its inputs are unusable (at the point);
//   force_flops, derivative_flops   its dense work (the cost estimates, model.cpp);
//   kName                           its name.
#pragma once

#include <cmath>
#include <string>
#include <string_view>

#include "nonholo/errors.hpp"
#include "nonholo/format.hpp"
#include "nonholo/linalg.hpp"
#include "nonholo/mechanical_system.hpp"
#include "nonholo/models/law_scale.hpp"

namespace nonholo {

// The friction coefficients of a sparse system: the nonzeros of mu by rows (SparseLayout's
// mu_outer, mu_inner), as the sparse tape gives them.
template <class S>
struct SparseRows {
  const S* values;
  const int* outer;
  const int* inner;
};

// The law's inputs at one point (views, held by value): the coefficients (RowMatMap<S> or
// SparseRows<S>), the scale eps (a double, or a dual number when a parameter is differentiated)
// and the normal load per row (null: the system gives none; no law written yet reads it).
template <class Mu, class E, class S = double>
struct LawInputs {
  Mu mu;
  E eps;
  const S* normal = nullptr;
};
template <class Mu, class E>
LawInputs(Mu, E) -> LawInputs<Mu, E>;

// mu x for dense or sparse coefficients (x and out indexable, of size k; out distinct from x).
template <class S, class X, class Out>
void coefficient_product(const RowMatMap<S>& mu, const X& x, Out& out) {
  out.noalias() = mu * x;
}
template <class S, class X, class Out>
void coefficient_product(const SparseRows<S>& mu, const X& x, Out& out) {
  const int k = static_cast<int>(out.size());
  for (int a = 0; a < k; ++a) {
    S sum = S(0.0);
    for (int e = mu.outer[a]; e < mu.outer[a + 1]; ++e) sum += mu.values[e] * x[mu.inner[e]];
    out[a] = sum;
  }
}

// The linear viscous law of the papers (Eldering 2016, eq. (21); Gzenda-Chhabra eq. (37)):
//   z = -(1/eps) mu s,   dz/ds = -(1/eps) mu,
// mu symmetric positive definite. Its fast rates are the eigenvalues of mu M / eps
// (M = A G^-1 A^T), and its slow manifold is expanded in powers of eps (slow_manifold.hpp).
struct ViscousLaw {
  static constexpr std::string_view kName = "viscous";

  // z = -(1/eps) mu s (z sized k by the caller).
  template <class Mu, class E, class N, class Vs, class Vz>
  static void force(const LawInputs<Mu, E, N>& in, const Vs& s, Vz& z) {
    using S = std::decay_t<decltype(z[0])>;
    coefficient_product(in.mu, s, z);
    const S scale = S(-1.0 / in.eps);
    for (int a = 0; a < static_cast<int>(z.size()); ++a) z[a] = z[a] * scale;
  }

  // dz (k x m) = -(1/eps) (mu ds + sum over the nonzeros (l, a, c, x) of dmu/dq^l: x s_c in
  // column l): for_each_dmu(f) calls f(l, a, c, x) for each of them.
  template <class ForEachDmu>
  static void derivative(const LawInputs<RowMatMap<double>, double>& in, const VecX<double>& s,
                         const MatX<double>& ds, ForEachDmu&& for_each_dmu, MatX<double>& dz) {
    dz.noalias() = in.mu * ds;
    for_each_dmu([&](int l, int a, int c, double x) { dz(a, l) += x * s[c]; });
    dz *= -1.0 / in.eps;
  }

  static void slope(const LawInputs<RowMatMap<double>, double>& in, MatX<double>& D) {
    D = in.mu;
    D *= -1.0 / in.eps;
  }

  // eps positive and finite, before anything is evaluated: a ModelError naming it (the model has no
  // realization there, as where mu is not positive definite; a fit's trial point there is rejected).
  static void check_scale(double eps) {
    if (!(eps > 0.0) || !std::isfinite(eps))
      throw ModelError("eps must be a positive finite number (got " + format_number(eps) + ")");
  }
  // The scale, and mu symmetric positive definite at the point `where` describes (ModelError).
  static void check(const LawInputs<MatX<double>, double>& in, const std::string& where) {
    check_scale(in.eps);
    if (in.mu.rows() == 0) return;
    Ldlt<double> chol_mu;
    if (!chol_mu.compute(in.mu))
      throw ModelError("the friction coefficients mu are not symmetric positive definite at " + where);
    if ((in.mu - in.mu.transpose()).norm() > 1e-12 * (1.0 + in.mu.norm()))
      throw ModelError("the friction coefficients mu are not symmetric at " + where);
  }

  // Multiply-adds of force (mu s, the scale) and of derivative on 2n columns (mu ds/dq and
  // mu A, dmu/dq s by its nonzeros), as model.cpp counts the model's dense work.
  static double force_flops(double k) { return k * k; }
  static double derivative_flops(double n, double k, double dmu_nonzeros) { return 2 * n * k * k + dmu_nonzeros; }
};

}  // namespace nonholo
