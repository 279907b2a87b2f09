// The sparse backend (nonholo/models/sparse_backend.hpp), compiled for the kinds with a sparse path.
#include "nonholo/models/sparse_backend.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "nonholo/errors.hpp"
#include "nonholo/models.hpp"
#include "nonholo/models/algebra.hpp"
#include "nonholo/models/friction.hpp"
#include "nonholo/models/nonholonomic.hpp"

namespace nonholo {

using LineScalar = Dual<double, 1>;

template <class Equations>
struct SparseBackend<Equations>::Work : Workspace {
  SparseGeometry<double> geo;
  SparseGeometry<JacobianScalar> dual;
  SparseGeometry<LineScalar> line;  // A, b along one direction (the projection's error)
  SymmetricSolver solver;
  std::vector<JacobianScalar> y, p, h, s, z;  // the kind's right-hand side (and its scratch) in dual numbers
  std::vector<LineScalar> q1, v1;
  std::vector<double> b, x, values;  // right-hand side and solution of K (n + k), the point's solution
  std::vector<double> s_d, z_d;      // the kind's scratch in doubles
  std::vector<double> columns;       // the Jacobian's directional derivatives, 2n per colour
};

namespace {

// "q = [q_0, .., q_5, ...] (n = 900), t = .." for error messages.
std::string describe(double t, const double* q, int n) {
  std::ostringstream os;
  os.precision(6);
  os << "q = [";
  for (int i = 0; i < std::min(n, 6); ++i) os << (i ? ", " : "") << q[i];
  if (n > 6) os << ", ...] (n = " << n << ")";
  else os << "]";
  os << ", t = " << t;
  return os.str();
}

}  // namespace

template <class Equations>
SparseBackend<Equations>::SparseBackend(std::shared_ptr<const MechanicalSystem> system, Equations equations)
    : Model(std::move(system)),
      equations_(std::move(equations)),
      pattern_(this->system().sparse_layout(), Equations::kSaddle),
      structure_(nonholo::jacobian_structure(this->system().sparse_layout(), this->system().sparse_output_inputs(),
                                             Equations::kReadsSlip)) {}

template <class Equations>
std::unique_ptr<Workspace> SparseBackend<Equations>::workspace() const {
  return std::make_unique<Work>();
}

template <class Equations>
void SparseBackend<Equations>::factor(double t, const double* q, Work& w) const {
  const SparseLayout& L = system().sparse_layout();
  w.solver.assemble(pattern_, w.geo.out.data() + L.G, w.geo.out.data() + L.A);
  if (w.solver.factor(pattern_, system().definite_metric())) return;
  throw ModelError(std::string(!pattern_.saddle() ? "the metric is not positive definite at "
                                                  : "the metric is not positive definite on the constraints' null space, or the "
                                           "constraint rows are linearly dependent, at ") +
                   describe(t, q, system().n()));
}

template <class Equations>
void SparseBackend<Equations>::rhs(double t, const double* y, const double* p, double* ydot, Workspace& ws) const {
  Work& w = static_cast<Work&>(ws);
  const int n = system().n();
  system().evaluate_sparse(t, y, y + n, p, w.geo);
  factor(t, y, w);
  equations_.template right_hand_side<SparseAlgebra>(w.geo, y + n, p, system().n_params(), w.s_d, w.z_d, w.b);
  w.x.resize(pattern_.size());
  w.solver.solve(pattern_, w.b.data(), w.x.data());
  std::copy(y + n, y + 2 * n, ydot);
  std::copy(w.x.begin(), w.x.begin() + n, ydot + n);
}

// d(rhs)_c - dK_c x: with K = G,  d(rhs)_c - dG_c v';  with K = [G, A^T; A, 0] and x = [v'; m],
// [d(rhs)_c - dG_c v' - dA_c^T m;  d(rhs)_c - dA_c v'] (rhs the kind's, in w.h).
template <class Equations>
void SparseBackend<Equations>::differentiated_rhs(int c, Work& w) const {
  const SparseLayout& L = system().sparse_layout();
  const int n = L.n;
  const JacobianScalar* out = w.dual.out.data();
  const double* x = w.values.data();  // v' then m
  w.b.assign(pattern_.size(), 0.0);
  for (int i = 0; i < n; ++i) w.b[i] = w.h[i].d[c];
  for (int j = 0; j < n; ++j)
    for (int e = L.G_outer[j]; e < L.G_outer[j + 1]; ++e) w.b[L.G_inner[e]] -= out[L.G + e].d[c] * x[j];
  if (!pattern_.saddle()) return;
  for (int a = 0; a < L.k; ++a) {
    double s = w.h[n + a].d[c];
    for (int e = L.A_outer[a]; e < L.A_outer[a + 1]; ++e) {
      const int j = L.A_inner[e];
      const double dA = out[L.A + e].d[c];
      w.b[j] -= dA * x[n + a];
      s -= dA * x[j];
    }
    w.b[n + a] = s;
  }
}

template <class Equations>
template <class Seed>
void SparseBackend<Equations>::directions(double t, const double* y, const double* p, int m, Seed&& seed, const int* index,
                             double* const* out, Work& w) const {
  const SparseLayout& L = system().sparse_layout();
  const int n = L.n, ns = 2 * n, np = n_params();
  w.y.resize(ns);
  for (int i = 0; i < ns; ++i) {
    w.y[i] = JacobianScalar(y[i]);
    for (int c = 0; c < m; ++c) w.y[i].d[c] = seed(c, i);
  }
  w.p.resize(np);
  for (int i = 0; i < np; ++i) w.p[i] = JacobianScalar(p[i]);
  for (int c = 0; c < m; ++c)
    if (index != nullptr && index[c] >= 0) w.p[index[c]].d[c] = 1.0;
  system().evaluate_sparse(t, w.y.data(), w.y.data() + n, w.p.data(), w.dual);
  // the values: the same operations as in doubles, so the same factors as rhs()
  w.geo.layout = w.dual.layout;
  w.geo.out.resize(w.dual.out.size());
  for (std::size_t j = 0; j < w.dual.out.size(); ++j) w.geo.out[j] = w.dual.out[j].v;
  factor(t, y, w);
  equations_.template right_hand_side<SparseAlgebra>(w.dual, w.y.data() + n, w.p.data(), system().n_params(), w.s,
                                                     w.z, w.h);
  w.b.resize(pattern_.size());
  for (int i = 0; i < pattern_.size(); ++i) w.b[i] = w.h[i].v;
  w.values.resize(pattern_.size());
  w.solver.solve(pattern_, w.b.data(), w.values.data());
  w.x.resize(pattern_.size());
  for (int c = 0; c < m; ++c) {
    differentiated_rhs(c, w);
    w.solver.solve(pattern_, w.b.data(), w.x.data());
    for (int i = 0; i < n; ++i) {
      out[c][i] = seed(c, n + i);  // q' = v
      out[c][n + i] = w.x[i];
    }
  }
}

template <class Equations>
void SparseBackend<Equations>::directional_derivatives(double t, const double* y, const double* p, int n_dir,
                                          const double* const* s, const int* index, double* const* out,
                                          Workspace& ws) const {
  Work& w = static_cast<Work&>(ws);
  for (int c0 = 0; c0 < n_dir; c0 += kJacobianChunk) {
    const int m = std::min(kJacobianChunk, n_dir - c0);
    directions(t, y, p, m, [&](int c, int i) { return s[c0 + c][i]; }, index + c0, out + c0, w);
  }
}

template <class Equations>
void SparseBackend<Equations>::sparse_jacobian(double t, const double* y, const double* p, double* values, Workspace& ws) const {
  Work& w = static_cast<Work&>(ws);
  const int n = system().n(), ns = 2 * n;
  const JacobianStructure& S = structure_;
  w.columns.resize(static_cast<std::size_t>(ns) * std::max(S.n_colors, 1));
  std::vector<double*> out(kJacobianChunk);
  for (int c0 = 0; c0 < S.n_colors; c0 += kJacobianChunk) {
    const int m = std::min(kJacobianChunk, S.n_colors - c0);
    for (int c = 0; c < m; ++c) out[c] = w.columns.data() + static_cast<std::size_t>(c0 + c) * ns;
    directions(t, y, p, m, [&](int c, int i) { return S.color[i] == c0 + c ? 1.0 : 0.0; }, nullptr, out.data(), w);
  }
  for (int col = 0; col < ns; ++col)
    for (int e = S.outer[col]; e < S.outer[col + 1]; ++e) {
      switch (S.source[e]) {
        case JacobianStructure::kOne: values[e] = 1.0; break;
        case JacobianStructure::kZero: values[e] = 0.0; break;
        default: values[e] = w.columns[static_cast<std::size_t>(S.color[col]) * ns + S.inner[e]];
      }
    }
}

template <class Equations>
void SparseBackend<Equations>::jacobian(double t, const double* y, const double* p, double* J, Workspace& ws) const {
  const int ns = n_states();
  std::vector<double> values(structure_.nnz());
  sparse_jacobian(t, y, p, values.data(), ws);
  std::fill(J, J + static_cast<std::size_t>(ns) * ns, 0.0);
  for (int col = 0; col < ns; ++col)
    for (int e = structure_.outer[col]; e < structure_.outer[col + 1]; ++e)
      J[structure_.inner[e] + static_cast<std::size_t>(col) * ns] = values[e];
}

template <class Equations>
void SparseBackend<Equations>::constraint_residual(double t, const double* y, const double* p, Workspace& ws, double* residual,
                                      double* scale) const {
  if (!has_constraints()) {  // what a model without constraints measures
    *residual = 0.0;
    *scale = 1.0;
    return;
  }
  Work& w = static_cast<Work&>(ws);
  const SparseLayout& L = system().sparse_layout();
  const int n = L.n;
  system().evaluate_sparse(t, y, y + n, p, w.geo, true);
  double r2 = 0.0, A2 = 0.0, b2 = 0.0, v2 = 0.0;
  for (int a = 0; a < L.k; ++a) {
    double s = -w.geo.b()[a];
    for (int e = L.A_outer[a]; e < L.A_outer[a + 1]; ++e) {
      s += w.geo.A()[e] * y[n + L.A_inner[e]];
      A2 += w.geo.A()[e] * w.geo.A()[e];
    }
    r2 += s * s;
    b2 += w.geo.b()[a] * w.geo.b()[a];
  }
  for (int i = 0; i < n; ++i) v2 += y[n + i] * y[n + i];
  *residual = std::sqrt(r2);
  *scale = std::sqrt(A2) * std::sqrt(v2) + std::sqrt(b2);
}

// [diag(weights_v^2), A^T; A, 0] assembled and factored: CVODE's weighted norm, as
// ConstrainedModel::project.
template <class Equations>
void SparseBackend<Equations>::factor_weighted(double t, const double* y, const double* weights, const double* A, Work& w) const {
  const int n = system().n();
  std::vector<double> d(n);
  for (int i = 0; i < n; ++i) d[i] = weights[n + i] * weights[n + i];
  w.solver.assemble_weighted(pattern_, d.data(), A);
  if (!w.solver.factor(pattern_, true))
    throw ModelError("the constraint rows are linearly dependent at " + describe(t, y, n));
}

template <class Equations>
void SparseBackend<Equations>::solve_correction(const double* L, Work& w) const {
  const int n = system().n(), k = system().k();
  w.b.assign(n + k, 0.0);
  std::copy(L, L + k, w.b.begin() + n);
  w.x.resize(n + k);
  w.solver.solve(pattern_, w.b.data(), w.x.data());
}

// corr_v = -x with [D, A^T; A, 0] [x; m] = [0; A v - b]: x = D^-1 A^T (A D^-1 A^T)^-1 (A v - b),
// the D-orthogonal projection of ConstrainedModel::project; err_v -= x for the linearized
// constraint A err_v + d/dq(A v - b) err_q (one dual direction through the constraint tape).
template <class Equations>
void SparseBackend<Equations>::project(double t, const double* y, const double* p, double* corr, double* err, const double* weights,
                          Workspace& ws) const {
  std::fill(corr, corr + n_states(), 0.0);
  if (!has_constraints()) return;
  Work& w = static_cast<Work&>(ws);
  const SparseLayout& L = system().sparse_layout();
  const int n = L.n, k = L.k;
  w.q1.resize(n);
  w.v1.resize(n);
  for (int i = 0; i < n; ++i) {
    w.q1[i] = LineScalar(y[i]);
    w.q1[i].d[0] = err != nullptr ? err[i] : 0.0;
    w.v1[i] = LineScalar(y[n + i]);
  }
  system().evaluate_sparse(t, w.q1.data(), w.v1.data(), p, w.line, true);
  std::vector<double> A(L.nnz_A()), residual(k), line(k);
  for (int e = 0; e < L.nnz_A(); ++e) A[e] = w.line.A()[e].v;
  for (int a = 0; a < k; ++a) {
    LineScalar s = -w.line.b()[a];
    for (int e = L.A_outer[a]; e < L.A_outer[a + 1]; ++e) s += w.line.A()[e] * w.v1[L.A_inner[e]];
    residual[a] = s.v;
    line[a] = s.d[0];
  }
  if (weights == nullptr) {
    system().evaluate_sparse(t, y, y + n, p, w.geo);
    factor(t, y, w);
  } else {
    factor_weighted(t, y, weights, A.data(), w);
  }
  solve_correction(residual.data(), w);
  for (int i = 0; i < n; ++i) corr[n + i] = -w.x[i];
  if (err == nullptr) return;
  for (int a = 0; a < k; ++a)
    for (int e = L.A_outer[a]; e < L.A_outer[a + 1]; ++e) line[a] += A[e] * err[n + L.A_inner[e]];
  solve_correction(line.data(), w);
  for (int i = 0; i < n; ++i) err[n + i] -= w.x[i];
}

// s_v -= x with [D, A^T; A, 0] [x; m] = [0; L s], L s = d/de [A(q + e s_q; p + e dp)(v + e s_v) - b].
template <class Equations>
void SparseBackend<Equations>::project_sensitivities(double t, const double* y, const double* p, int n_dir, double* const* s,
                                        const int* index, const double* weights, Workspace& ws) const {
  if (!has_constraints() || n_dir == 0) return;
  Work& w = static_cast<Work&>(ws);
  const SparseLayout& L = system().sparse_layout();
  const int n = L.n, k = L.k, np = n_params();
  std::vector<double> Ls(static_cast<std::size_t>(k) * n_dir), A(L.nnz_A());
  for (int c0 = 0; c0 < n_dir; c0 += kJacobianChunk) {
    const int c1 = std::min(n_dir, c0 + kJacobianChunk);
    w.y.resize(2 * n);
    for (int i = 0; i < 2 * n; ++i) {
      w.y[i] = JacobianScalar(y[i]);
      for (int j = c0; j < c1; ++j) w.y[i].d[j - c0] = s[j][i];
    }
    w.p.resize(np);
    for (int i = 0; i < np; ++i) w.p[i] = JacobianScalar(p[i]);
    for (int j = c0; j < c1; ++j)
      if (index[j] >= 0) w.p[index[j]].d[j - c0] = 1.0;
    system().evaluate_sparse(t, w.y.data(), w.y.data() + n, w.p.data(), w.dual, true);
    for (int e = 0; e < L.nnz_A(); ++e) A[e] = w.dual.A()[e].v;
    for (int a = 0; a < k; ++a) {
      JacobianScalar sum = -w.dual.b()[a];
      for (int e = L.A_outer[a]; e < L.A_outer[a + 1]; ++e) sum += w.dual.A()[e] * w.y[n + L.A_inner[e]];
      for (int j = c0; j < c1; ++j) Ls[static_cast<std::size_t>(j) * k + a] = sum.d[j - c0];
    }
  }
  if (weights == nullptr) {
    system().evaluate_sparse(t, y, y + n, p, w.geo);
    factor(t, y, w);
  } else {
    factor_weighted(t, y, weights, A.data(), w);
  }
  for (int j = 0; j < n_dir; ++j) {
    solve_correction(Ls.data() + static_cast<std::size_t>(j) * k, w);
    for (int i = 0; i < n; ++i) s[j][n + i] -= w.x[i];
  }
}

template <class Equations>
void SparseBackend<Equations>::check_state(double t, const double* y, const double* p, Workspace& ws) const {
  Work& w = static_cast<Work&>(ws);
  const int n = system().n();
  equations_.check_scale(p, system().n_params());
  system().evaluate_sparse(t, y, y + n, p, w.geo);
  factor(t, y, w);
  equations_.template check_point<SparseAlgebra>(w.geo, p, system().n_params(), [&] { return describe(t, y, n); });
}

template class SparseBackend<NonholonomicEquations>;
template class SparseBackend<FrictionEquations<ViscousLaw>>;

std::shared_ptr<Model> make_sparse_model(std::shared_ptr<const MechanicalSystem> system, bool friction) {
  if (friction) return std::make_shared<SparseBackend<FrictionEquations<ViscousLaw>>>(std::move(system));
  return std::make_shared<SparseBackend<NonholonomicEquations>>(std::move(system));
}

}  // namespace nonholo
