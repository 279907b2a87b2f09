// The products a model kind's equations are written with, over a linear-algebra backend. A kind
// states its equations once (FrictionEquations in models/friction.hpp, NonholonomicEquations in
// models/nonholonomic.hpp) in terms of these, for any scalar type; a backend supplies them for
// its storage of the system's expressions at a point:
//   DenseAlgebra   Geometry<S> from the dynamics tapes: G, A, mu as dense matrices (Eigen);
//   SparseAlgebra  SparseGeometry<S> from the sparse tape: the nonzeros of G, A, mu by rows.
// The factorizations, the solves and the Jacobian's structure belong to the backend: the dense
// models (ModelImpl, mechanics.hpp) and the sparse backend (models/sparse_backend.hpp).
#pragma once

#include <algorithm>
#include <vector>

#include "nonholo/linalg.hpp"
#include "nonholo/mechanical_system.hpp"
#include "nonholo/models/friction_law.hpp"

namespace nonholo {

struct DenseAlgebra {
  // s = A v - b (k).
  template <class S, class Out>
  static void slip(const Geometry<S>& g, const S* v, Out& s) {
    s = -g.b();
    s.noalias() += g.A() * Eigen::Map<const VecX<S>>(v, g.n());
  }
  // The friction coefficients as a law reads them (friction_law.hpp), and as a dense matrix.
  template <class S>
  static RowMatMap<S> coefficients(const Geometry<S>& g) {
    return g.mu();
  }
  static MatX<double> dense_coefficients(const Geometry<double>& g) { return MatX<double>(g.mu()); }
  // h = r + A^T z (n).
  template <class S, class Z, class Out>
  static void constraint_force(const Geometry<S>& g, const Z& z, Out& h) {
    h = g.r();
    h.noalias() += g.A().transpose() * z;
  }
};

struct SparseAlgebra {
  template <class S>
  static void slip(const SparseGeometry<S>& g, const S* v, std::vector<S>& s) {
    const SparseLayout& L = *g.layout;
    const S* A = g.A();
    s.resize(L.k);
    for (int a = 0; a < L.k; ++a) {
      S x = -g.b()[a];
      for (int e = L.A_outer[a]; e < L.A_outer[a + 1]; ++e) x += A[e] * v[L.A_inner[e]];
      s[a] = x;
    }
  }
  template <class S>
  static SparseRows<S> coefficients(const SparseGeometry<S>& g) {
    return {g.mu(), g.layout->mu_outer.data(), g.layout->mu_inner.data()};
  }
  static MatX<double> dense_coefficients(const SparseGeometry<double>& g) {
    const SparseLayout& L = *g.layout;
    MatX<double> mu = MatX<double>::Zero(L.k, L.k);
    for (int a = 0; a < L.k; ++a)
      for (int e = L.mu_outer[a]; e < L.mu_outer[a + 1]; ++e) mu(a, L.mu_inner[e]) = g.mu()[e];
    return mu;
  }
  template <class S>
  static void constraint_force(const SparseGeometry<S>& g, const std::vector<S>& z, std::vector<S>& h) {
    const SparseLayout& L = *g.layout;
    const S* A = g.A();
    h.assign(g.r(), g.r() + L.n);
    for (int a = 0; a < L.k; ++a)
      for (int e = L.A_outer[a]; e < L.A_outer[a + 1]; ++e) h[L.A_inner[e]] += A[e] * z[a];
  }
  // [r; a] (n + k).
  template <class S>
  static void saddle_rhs(const SparseGeometry<S>& g, std::vector<S>& out) {
    const SparseLayout& L = *g.layout;
    out.resize(L.n + L.k);
    std::copy(g.r(), g.r() + L.n, out.begin());
    std::copy(g.a(), g.a() + L.k, out.begin() + L.n);
  }
};

}  // namespace nonholo
