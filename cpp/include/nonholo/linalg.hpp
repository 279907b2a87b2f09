// Dense factorizations written for any scalar type (double, dual numbers, Taylor series), so
// that derivatives flow through them.
//
// Ldlt: A = L D L^T without pivoting and without square roots, for the symmetric matrices of
// mechanics (the metric G, the constraint Gram matrix M = A G^-1 A^T, the friction coefficients
// mu). In definite mode a pivot that is not positive (relative to the largest diagonal entry)
// is a failure: the matrix is not positive definite. In indefinite mode (regular but indefinite
// Lagrangians, e.g. Fernandez-Bloch's) only a vanishing pivot is.
//
// Lu: partial-pivoting LU for general square matrices (frames), pivoting on values.
//
// The kernels are written for the small sizes of mechanics (n up to a few dozen), where the
// cost is latency and loop overhead, not flops: raw pointers into preallocated storage (no
// resize, no Eigen product dispatch per call), the factorization right-looking (the updates
// after a pivot independent and contiguous along a row), the Gram matrix of the halves as
// independent dot products, the vector sweeps as plain scalar loops (rows of a few entries are
// too short for vector instructions to pay; measured). Each entry of L, D and of a solve is
// computed by the same operations in the same order as the textbook loops (left-looking LDL^T,
// row-by-row substitution), so those results are bit for bit the same for every scalar type
// (cpp/tests/test_linalg.cpp).
//
// Ldlt stays hand-written (benchmarks/README.md, "Hand-written factorizations against Eigen's"): a call
// is 1.3-2.7x faster than LDLT up to 18 unknowns; Eigen's LLT read directly (D = I, its triangular
// solves) made a right-hand side's G and M algebra 1.14-1.39x slower in CPU time from 16 unknowns on
// (chains N = 16-64, platoon; 0.92-1.10x the instructions). Eigen's take no dual or traced scalars.
#pragma once

#include <algorithm>
#include <limits>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

#include <Eigen/Core>
#include <Eigen/LU>

#include "nonholo/scalar/value.hpp"

namespace nonholo {

template <class S>
using RowMatX = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace detail {

// True when X's columns are contiguous arrays (column-major storage with unit inner stride
// checked at run time by the caller): vectors, matrices, maps and column blocks of them.
template <class Derived>
constexpr bool columns_contiguous() {
  return (static_cast<unsigned>(Derived::Flags) & Eigen::DirectAccessBit) != 0 &&
         (Derived::ColsAtCompileTime == 1 || !Derived::IsRowMajor);
}

}  // namespace detail

template <class S>
class Ldlt {
 public:
  using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1>;

  // Returns false when a pivot is not positive (definite) or vanishes (indefinite), relative to
  // the largest diagonal entry, or with ``own_scale`` (definite only) to its own diagonal entry |A_pp|:
  // the matrix is not (positive) definite or is singular. A metric is factored with ``own_scale``: its
  // diagonal holds masses and inertias of any spread (1e13 beside 0.5 was refused against the largest),
  // and a pivot small against its own entry is a direction the others nearly span. Reads the lower
  // triangle of A only.
  template <class Derived>
  bool compute(const Eigen::MatrixBase<Derived>& A, bool definite = true, bool own_scale = false) {
    const int n = static_cast<int>(A.rows());
    reserve(n);
    S* L = L_.data();
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) L[static_cast<std::ptrdiff_t>(i) * n + j] = A(i, j);
    return factor_in_place(definite, definite && own_scale);
  }

  // The Gram matrix M = B^T C of two n x k row-major matrices (a row per coordinate, contiguous
  // across the constraints; Ct = C^T, k x n row-major, the same entries), factored: M(a, b) =
  // sum_i B(i, a) C(i, b) accumulated in the order of i, from 0, so the bits are those of
  // compute(B^T C) with B^T C so formed. Below kLargeOrder constraints each entry is a dot
  // product (two at a time, for two independent chains); from there on the sum runs as rank-one
  // updates of the lower triangle, four coordinates per pass: the same products in the same
  // order per entry, but the updates along a row are independent, where each dot product is a
  // chain of dependent additions (k = 128: ~3x fewer cycles). Used by factor_gram_halves below.
  bool compute_gram(const RowMatX<S>& B, const RowMatX<S>& C, const RowMatX<S>& Ct, bool definite = true) {
    const int k = static_cast<int>(B.cols());
    reserve(k);
    if (k < kLargeOrder) gram_by_dot_products(B, Ct);
    else gram_by_rank_one_updates(B, C);
    return factor_in_place(definite, false);
  }

  int size() const { return static_cast<int>(L_.rows()); }

  // X <- A^-1 X (X may be a vector or a matrix).
  template <class Derived>
  void solve_in_place(Eigen::MatrixBase<Derived>& X) const {
    if (X.cols() == 1 && contiguous(X)) {
      solve(&X.derived().coeffRef(0, 0));
      return;
    }
    forward_in_place(X);
    const int n = size();
    for (int c = 0; c < X.cols(); ++c)
      for (int i = 0; i < n; ++i) X(i, c) = X(i, c) * d_inv_(i);  // the reciprocal pivots, once per factorization
    backward_in_place(X);
  }
  template <class Derived>
  void solve_in_place(Eigen::MatrixBase<Derived>&& X) const {
    solve_in_place(X);
  }

  // The two halves of the solve, A^-1 = L^-T D^-1 L^-1, for products such as
  // B^T A^-1 B = (L^-1 B)^T D^-1 (L^-1 B) that need only one of them per side.
  // X <- L^-1 X (forward substitution). A contiguous vector: entry by entry, each minus its
  // products with the entries above it (as a plain scalar loop: the rows are too short for
  // vector instructions to pay). A matrix: row by row and across the columns of
  // X within a row: row i reads only rows finished before it, and a row's updates of different
  // columns are independent (a column-by-column sweep makes a chain of dependent updates per
  // column, which several columns do not overlap well).
  template <class Derived>
  void forward_in_place(Eigen::MatrixBase<Derived>& X) const {
    if (X.cols() == 1 && contiguous(X)) {
      forward(&X.derived().coeffRef(0, 0));
      return;
    }
    const int n = size(), cols = static_cast<int>(X.cols());
    if constexpr (detail::columns_contiguous<Derived>()) {
      if (n >= kLargeOrder && cols > 0 && X.derived().innerStride() == 1) {
        forward_columns(&X.derived().coeffRef(0, 0), X.derived().outerStride(), cols);
        return;
      }
    }
    const S* L = L_.data();
    for (int i = 1; i < n; ++i) {
      const S* Li = L + static_cast<std::ptrdiff_t>(i) * n;
      for (int p = 0; p < i; ++p) {
        const S l = Li[p];
        for (int c = 0; c < cols; ++c) X(i, c) -= l * X(p, c);
      }
    }
  }
  template <class Derived>
  void forward_in_place(Eigen::MatrixBase<Derived>&& X) const {
    forward_in_place(X);
  }
  // X <- L^-T X (back substitution), column by column, in the row-oriented (axpy) order that
  // reads L by rows.
  template <class Derived>
  void backward_in_place(Eigen::MatrixBase<Derived>& X) const {
    const int n = size(), cols = static_cast<int>(X.cols());
    if (contiguous(X)) {
      for (int c = 0; c < cols; ++c) backward(&X.derived().coeffRef(0, c));
      return;
    }
    const S* L = L_.data();
    for (int c = 0; c < cols; ++c)
      for (int i = n - 1; i > 0; --i) {
        const S* Li = L + static_cast<std::ptrdiff_t>(i) * n;
        const S xi = X(i, c);
        for (int p = 0; p < i; ++p) X(p, c) -= Li[p] * xi;
      }
  }
  template <class Derived>
  void backward_in_place(Eigen::MatrixBase<Derived>&& X) const {
    backward_in_place(X);
  }

  // The same on contiguous arrays of length size(): x <- L^-1 x, x <- L^-T x, x <- A^-1 x.
  void forward(S* x) const {
    const int n = size();
    const S* L = L_.data();
    for (int i = 1; i < n; ++i) {
      const S* Li = L + static_cast<std::ptrdiff_t>(i) * n;
      for (int p = 0; p < i; ++p) x[i] -= Li[p] * x[p];
    }
  }
  void backward(S* x) const {
    const int n = size();
    const S* L = L_.data();
    for (int i = n - 1; i > 0; --i) {
      const S* __restrict Li = L + static_cast<std::ptrdiff_t>(i) * n;
      S* __restrict xp = x;
      const S xi = x[i];
      for (int p = 0; p < i; ++p) xp[p] -= Li[p] * xi;
    }
  }
  void solve(S* x) const {
    forward(x);
    const int n = size();
    const S* d_inv = d_inv_.data();
    for (int i = 0; i < n; ++i) x[i] = x[i] * d_inv[i];
    backward(x);
  }

  // X <- L^-1 X for a row-major n x cols matrix X: row i minus L(i, p) times row p, for p < i
  // in order (each entry as in forward(), the rows' updates independent across the columns);
  // from kBlockedColumns columns on, four rows p per pass over row i (a quarter of the loads and
  // stores of row i; the subtractions of an entry in the same order; rows of a few entries gain
  // nothing from it).
  static constexpr int kBlockedColumns = 8;
  void forward_rows(RowMatX<S>& X) const {
    const int n = size(), cols = static_cast<int>(X.cols());
    const S* L = L_.data();
    S* Xd = X.data();
    for (int i = 1; i < n; ++i) {
      const S* Li = L + static_cast<std::ptrdiff_t>(i) * n;
      S* __restrict xi = Xd + static_cast<std::ptrdiff_t>(i) * cols;
      int p = 0;
      for (; cols >= kBlockedColumns && p + 4 <= i; p += 4) {
        const S* __restrict x0 = Xd + static_cast<std::ptrdiff_t>(p) * cols;
        const S* __restrict x1 = x0 + cols;
        const S* __restrict x2 = x1 + cols;
        const S* __restrict x3 = x2 + cols;
        const S l0 = Li[p], l1 = Li[p + 1], l2 = Li[p + 2], l3 = Li[p + 3];
        for (int c = 0; c < cols; ++c) xi[c] = xi[c] - l0 * x0[c] - l1 * x1[c] - l2 * x2[c] - l3 * x3[c];
      }
      for (; p < i; ++p) {
        const S* __restrict xp = Xd + static_cast<std::ptrdiff_t>(p) * cols;
        const S l = Li[p];
        for (int c = 0; c < cols; ++c) xi[c] -= l * xp[c];
      }
    }
  }

  // 1 / D, the reciprocal pivots.
  const Vec& inverse_pivots() const { return d_inv_; }

  int failed_pivot() const { return failed_pivot_; }
  // The smallest pivot a factorization takes: 1e-13 of what it is measured against (compute), and no
  // subnormal.
  static double pivot_floor(double against) {
    return std::max(1e-13 * against, std::numeric_limits<double>::min());
  }
  // The failed pivot over what it is measured against: near zero for a singular matrix, negative
  // (beyond rounding) for an indefinite one.
  double failed_ratio() const { return failed_ratio_; }

 private:
  // Storage for an n x n factorization; no allocation when the size is unchanged.
  void reserve(int n) {
    if (L_.rows() != n) {
      L_.resize(n, n);
      d_.resize(n);
      d_inv_.resize(n);
      ld_.resize(n);
      own_.resize(n);
    }
  }

  // LDL^T of the symmetric matrix whose lower triangle is in L_ (row-major), in place: after
  // pivot p, the trailing lower triangle is updated by L(i, p) (L(j, p) d(p)) for j <= i
  // (right-looking), so every entry sees the same subtractions, in the same order, as in the
  // left-looking algorithm, while the updates of a row are independent and contiguous.
  bool factor_in_place(bool definite, bool own_scale) {
    const int n = static_cast<int>(L_.rows());
    S* L = L_.data();
    double scale = 0.0;
    for (int i = 0; i < n; ++i) {
      own_(i) = std::abs(value(L[static_cast<std::ptrdiff_t>(i) * n + i]));
      scale = std::max(scale, own_(i));
    }
    if constexpr (TraceHooks<S>::kTracing) diagonal_ = L_.diagonal();  // what the pivots are measured against
    S* __restrict ld = ld_.data();
    for (int p = 0; p < n; ++p) {
      S* Lp = L + static_cast<std::ptrdiff_t>(p) * n;
      const S dp = Lp[p];
      const double v = value(dp);
      const double against = own_scale ? own_(p) : scale;
      const double tiny = own_scale ? pivot_floor(against) : 1e-13 * scale;
      if (definite ? !(v > tiny) : !(std::abs(v) > tiny)) {
        failed_pivot_ = p;
        failed_ratio_ = against > 0.0 ? v / against : v;
        return false;
      }
      d_(p) = dp;
      const S dinv = S(1.0) / dp;
      d_inv_(p) = dinv;
      Lp[p] = S(1.0);
      for (int i = p + 1; i < n; ++i) {
        S& lip = L[static_cast<std::ptrdiff_t>(i) * n + p];
        lip = lip * dinv;
        ld[i] = lip * dp;
      }
      for (int i = p + 1; i < n; ++i) {
        S* __restrict Li = L + static_cast<std::ptrdiff_t>(i) * n;
        const S lip = Li[p];
        for (int j = p + 1; j <= i; ++j) Li[j] -= lip * ld[j];
      }
    }
    failed_pivot_ = -1;
    if constexpr (TraceHooks<S>::kTracing) TraceHooks<S>::pivots(diagonal_.data(), d_.data(), n, definite, own_scale);
    return true;
  }

  // M(a, b), b <= a, into L_ as dot products of column a of B and row b of Ct.
  void gram_by_dot_products(const RowMatX<S>& B, const RowMatX<S>& Ct) {
    const int n = static_cast<int>(B.rows()), k = static_cast<int>(B.cols());
    S* M = L_.data();
    const S* Bd = B.data();
    for (int a = 0; a < k; ++a) {
      S* Ma = M + static_cast<std::ptrdiff_t>(a) * k;
      int b = 0;
      for (; b + 1 <= a; b += 2) {
        const S* y0 = Ct.data() + static_cast<std::ptrdiff_t>(b) * n;
        const S* y1 = y0 + n;
        S m0 = S(0.0), m1 = S(0.0);
        for (int i = 0; i < n; ++i) {
          const S x = Bd[static_cast<std::ptrdiff_t>(i) * k + a];
          m0 += x * y0[i];
          m1 += x * y1[i];
        }
        Ma[b] = m0;
        Ma[b + 1] = m1;
      }
      for (; b <= a; ++b) {
        const S* y = Ct.data() + static_cast<std::ptrdiff_t>(b) * n;
        S m = S(0.0);
        for (int i = 0; i < n; ++i) m += Bd[static_cast<std::ptrdiff_t>(i) * k + a] * y[i];
        Ma[b] = m;
      }
    }
  }
  // The same as rank-one updates, four rows of B and C per pass over the lower triangle.
  void gram_by_rank_one_updates(const RowMatX<S>& B, const RowMatX<S>& C) {
    const int n = static_cast<int>(B.rows()), k = static_cast<int>(B.cols());
    S* M = L_.data();
    for (int a = 0; a < k; ++a)
      for (int b = 0; b <= a; ++b) M[static_cast<std::ptrdiff_t>(a) * k + b] = S(0.0);
    const S* Bd = B.data();
    const S* Cd = C.data();
    int i = 0;
    for (; i + 4 <= n; i += 4) {
      const S* x = Bd + static_cast<std::ptrdiff_t>(i) * k;
      const S* y = Cd + static_cast<std::ptrdiff_t>(i) * k;
      for (int a = 0; a < k; ++a) {
        const S x0 = x[a], x1 = x[k + a], x2 = x[2 * k + a], x3 = x[3 * k + a];
        S* __restrict Ma = M + static_cast<std::ptrdiff_t>(a) * k;
        const S* __restrict y0 = y;
        const S* __restrict y1 = y + k;
        const S* __restrict y2 = y + 2 * k;
        const S* __restrict y3 = y + 3 * k;
        for (int b = 0; b <= a; ++b) Ma[b] = Ma[b] + x0 * y0[b] + x1 * y1[b] + x2 * y2[b] + x3 * y3[b];
      }
    }
    for (; i < n; ++i) {
      const S* x = Bd + static_cast<std::ptrdiff_t>(i) * k;
      const S* __restrict y = Cd + static_cast<std::ptrdiff_t>(i) * k;
      for (int a = 0; a < k; ++a) {
        const S xa = x[a];
        S* __restrict Ma = M + static_cast<std::ptrdiff_t>(a) * k;
        for (int b = 0; b <= a; ++b) Ma[b] += xa * y[b];
      }
    }
  }

  // From this order on, a matrix's forward substitution runs down contiguous columns, four at a
  // time (forward_columns): row by row across strided columns, each update touches another cache
  // line (n = 130: 260 columns of 1 KB).
  static constexpr int kLargeOrder = 32;

  // X <- L^-1 X for the columns of X at x (stride ld apart), four columns per pass: each entry
  // minus its products with the entries above it in order, as forward() does, the four columns'
  // chains independent.
  void forward_columns(S* x, std::ptrdiff_t ld, int cols) const {
    const int n = size();
    const S* L = L_.data();
    int c = 0;
    for (; c + 4 <= cols; c += 4) {
      S* __restrict x0 = x + c * ld;
      S* __restrict x1 = x0 + ld;
      S* __restrict x2 = x1 + ld;
      S* __restrict x3 = x2 + ld;
      for (int i = 1; i < n; ++i) {
        const S* Li = L + static_cast<std::ptrdiff_t>(i) * n;
        S a0 = x0[i], a1 = x1[i], a2 = x2[i], a3 = x3[i];
        for (int p = 0; p < i; ++p) {
          const S l = Li[p];
          a0 -= l * x0[p];
          a1 -= l * x1[p];
          a2 -= l * x2[p];
          a3 -= l * x3[p];
        }
        x0[i] = a0;
        x1[i] = a1;
        x2[i] = a2;
        x3[i] = a3;
      }
    }
    for (; c < cols; ++c) forward(x + c * ld);
  }

  // True when X's columns are contiguous arrays (&X(0, c) points at column c).
  template <class Derived>
  static bool contiguous(const Eigen::MatrixBase<Derived>& X) {
    if constexpr (detail::columns_contiguous<Derived>()) return X.derived().innerStride() == 1;
    else return false;
  }

  RowMatX<S> L_;  // unit lower triangle, by rows (the strict upper triangle is not used)
  Vec d_, d_inv_, ld_;
  Vec diagonal_;  // traced scalars only: the factored matrix's diagonal (TraceHooks)
  Eigen::VectorXd own_;  // |A_pp|: what pivot p is measured against with own_scale
  int failed_pivot_ = -1;
  double failed_ratio_ = 0.0;
};

// The halves of the constraint Gram matrix M = A G^-1 A^T for G = L D L^T: B = L^-1 A^T and
// C = D^-1 B (n x k), so that M = B^T C, A G^-1 x = C^T (L^-1 x) and G^-1 A^T y = L^-T (C y).
// B and C are row-major (a row per coordinate, for the forward sweeps and the Gram matrix's
// rank-one updates); Ct = C^T (k x n, row-major: a row per constraint, contiguous in the
// coordinates) for the products with vectors.
template <class S>
struct GramHalves {
  RowMatX<S> B, C, Ct;
};

// The halves of A G^-1 A^T (G factored in chol_G, A k x n, any Eigen expression) into h, and
// M = B^T C factored into chol_M (M itself is not formed): k forward sweeps, row by row across
// the constraints, and a symmetric product. Returns false when M is not (positive) definite.
template <class S, class Derived>
bool factor_gram_halves(const Ldlt<S>& chol_G, const Eigen::MatrixBase<Derived>& A, GramHalves<S>& h,
                        Ldlt<S>& chol_M, bool definite) {
  const int n = static_cast<int>(A.cols()), k = static_cast<int>(A.rows());
  h.B.resize(n, k);
  h.C.resize(n, k);
  h.Ct.resize(k, n);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < k; ++c) h.B(i, c) = A(c, i);
  chol_G.forward_rows(h.B);
  const S* d_inv = chol_G.inverse_pivots().data();
  S* ct = h.Ct.data();
  for (int i = 0; i < n; ++i) {
    const S* b = h.B.data() + static_cast<std::ptrdiff_t>(i) * k;
    S* c = h.C.data() + static_cast<std::ptrdiff_t>(i) * k;
    for (int a = 0; a < k; ++a) {
      c[a] = b[a] * d_inv[i];
      ct[static_cast<std::ptrdiff_t>(a) * n + i] = c[a];
    }
  }
  return k == 0 || chol_M.compute_gram(h.B, h.C, h.Ct, definite);
}

// Small matrix-vector products on row-major storage (rows x cols at A), accumulated in the
// order of the summation index, written into preallocated vectors (no Eigen product dispatch,
// whose set-up costs more than the arithmetic at these sizes).
// out(i) (+)= sign sum_j A(i, j) x(j): each row a dot product in a register.
template <class S>
void rows_times(const S* A, int rows, int cols, const S* x, S* out, bool accumulate, bool subtract) {
  for (int i = 0; i < rows; ++i) {
    const S* Ai = A + static_cast<std::ptrdiff_t>(i) * cols;
    S s = S(0.0);
    for (int j = 0; j < cols; ++j) s += Ai[j] * x[j];
    if (!accumulate) out[i] = subtract ? S(-s) : s;
    else if (subtract) out[i] -= s;
    else out[i] += s;
  }
}
// out(j) (+)= sign sum_i A(i, j) x(i) (the transpose): row by row of A, each an independent
// update of out; out is set to zero first unless accumulating.
template <class S>
void rows_transpose_times(const S* A, int rows, int cols, const S* x, S* __restrict out, bool accumulate,
                          bool subtract) {
  if (!accumulate)
    for (int j = 0; j < cols; ++j) out[j] = S(0.0);
  for (int i = 0; i < rows; ++i) {
    const S* __restrict Ai = A + static_cast<std::ptrdiff_t>(i) * cols;
    const S xi = x[i];
    if (subtract)
      for (int j = 0; j < cols; ++j) out[j] -= Ai[j] * xi;
    else
      for (int j = 0; j < cols; ++j) out[j] += Ai[j] * xi;
  }
}

// LU with partial pivoting for every scalar type (doubles, dual numbers, Taylor series and the
// tracer that records it into a fused tape), refusing pivots below 1e-13 of the largest entry: the
// frames' k x k split blocks. Doubles go to Eigen's PartialPivLU: on the frame blocks of the
// workloads (benchmarks/linear_algebra_cost.py --kernels; benchmarks/README.md, "Hand-written
// factorizations against Eigen's") the loops below were not 1.2x faster (a tie at k = 5, the
// bicycle; slower from k = 10 on, the platoon and the chains), so they stay only for the other
// scalars, which Eigen's cannot pivot on (a value, and the candidates a trace records). Both choose
// the same pivots (the largest |a_ij| in the column); the factors agree to rounding, not bit for
// bit (runs of the frame models: the same counters, states within 1e-13). The solves go through
// work_, so that none allocates. The core has two other LUs, each for a reason given in its place:
// CVODE's Newton matrix (sundials/dense_lu.hpp) and the discrete integrator's Newton step
// (discrete.cpp, Eigen's PartialPivLU).
// kEigen selects the implementation (benchmarks/linear_algebra_kernels.cpp times Lu<double, false>,
// the loops, against Eigen's).
template <class S, bool kEigen = std::is_same_v<S, double>>
class Lu {
 public:
  using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;

  // Returns false when the matrix is singular to working precision. The factors are stored by
  // rows, so that the elimination's row updates and the solves' dot products and updates run
  // along contiguous memory (the Voronets frame factors and solves with its k x k block at
  // every right-hand side).
  template <class Derived>
  bool compute(const Eigen::MatrixBase<Derived>& A) {
    if constexpr (kEigen) return compute_eigen(A);
    const int n = static_cast<int>(A.rows());
    LU_ = A;
    std::vector<S> candidates;  // a trace records the row order it chose, for its replay to test (TraceHooks)
    perm_.resize(n);
    work_.resize(n);
    u_inv_.resize(n);
    double scale = 0.0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) scale = std::max(scale, std::abs(value(A(i, j))));
    for (int i = 0; i < n; ++i) perm_[i] = i;
    for (int j = 0; j < n; ++j) {
      int piv = j;
      for (int i = j + 1; i < n; ++i)
        if (std::abs(value(LU_(i, j))) > std::abs(value(LU_(piv, j)))) piv = i;
      if (!(std::abs(value(LU_(piv, j))) > 1e-13 * scale)) return false;
      if constexpr (TraceHooks<S>::kTracing) {
        candidates.push_back(LU_(piv, j));
        for (int i = j; i < n; ++i)
          if (i != piv) candidates.push_back(LU_(i, j));
      }
      if (piv != j) {
        LU_.row(piv).swap(LU_.row(j));
        std::swap(perm_[piv], perm_[j]);
      }
      const S* rj = row(j);
      u_inv_(j) = S(1.0) / rj[j];
      for (int i = j + 1; i < n; ++i) {
        S* ri = row(i);
        ri[j] = ri[j] / rj[j];
        const S l = ri[j];
        for (int k = j + 1; k < n; ++k) ri[k] -= l * rj[k];
      }
    }
    if constexpr (TraceHooks<S>::kTracing) TraceHooks<S>::lu_pivots(candidates.data(), n);
    return true;
  }

  // max |U_ii| / min |U_ii| of the factorization (values): a cheap lower estimate of the
  // condition number of the factored matrix.
  double pivot_ratio() const {
    double lo = std::numeric_limits<double>::infinity(), hi = 0.0;
    for (int i = 0; i < LU_.rows(); ++i) {
      const double u = std::abs(value(pivot(i)));
      lo = std::min(lo, u);
      hi = std::max(hi, u);
    }
    return LU_.rows() == 0 ? 1.0 : hi / lo;
  }

  // x <- A^-1 x for a vector x (no allocation). The sweeps run in work_ (contiguous), their
  // dot products in four interleaved partial sums (dot_from): four independent chains of
  // additions instead of one, which the latency of each addition would otherwise serialize.
  template <class Derived>
  void solve_in_place(Eigen::MatrixBase<Derived>& x) const {
    if constexpr (kEigen) {
      if (LU_.rows() == 0) return;
      work_ = eigen_.solve(x);
      x = work_;
      return;
    }
    const int n = static_cast<int>(LU_.rows());
    S* w = work_.data();
    for (int i = 0; i < n; ++i) w[i] = dot_from(x(perm_[i]), row(i), w, i);  // L^-1 P x
    for (int i = n - 1; i >= 0; --i) {
      const S* ri = row(i);
      w[i] = dot_from(w[i], ri + i + 1, w + i + 1, n - i - 1) * u_inv_(i);  // no division in the chain
    }
    for (int i = 0; i < n; ++i) x(i) = w[i];
  }

  // x <- A^-T x for a vector x (no allocation): with P A = L U, A^T = U^T L^T P, so
  // U^T t = x (forward), L^T t' = t (backward, unit diagonal), x = P^T t'; both sweeps update
  // along the rows of U and L.
  template <class Derived>
  void solve_transpose_in_place(Eigen::MatrixBase<Derived>& x) const {
    if constexpr (kEigen) {  // U^T, then L^T in work_, then x = P^T work_ (no aliasing: no mask allocated)
      if (LU_.rows() == 0) return;
      work_ = x;
      eigen_.matrixLU().template triangularView<Eigen::Upper>().transpose().solveInPlace(work_);
      eigen_.matrixLU().template triangularView<Eigen::UnitLower>().transpose().solveInPlace(work_);
      x = eigen_.permutationP().transpose() * work_;
      return;
    }
    const int n = static_cast<int>(LU_.rows());
    for (int i = 0; i < n; ++i) work_(i) = x(i);
    for (int i = 0; i < n; ++i) {
      const S* ri = row(i);
      const S t = work_(i) * u_inv_(i);
      work_(i) = t;
      for (int p = i + 1; p < n; ++p) work_(p) -= ri[p] * t;
    }
    for (int i = n - 1; i > 0; --i) {
      const S* ri = row(i);
      const S t = work_(i);
      for (int p = 0; p < i; ++p) work_(p) -= ri[p] * t;
    }
    for (int i = 0; i < n; ++i) x(perm_[i]) = work_(i);
  }

  // The inverse, column by column.
  Mat inverse() const {
    Mat X;
    inverse(X);
    return X;
  }

  // The inverse into X (no allocation when X already has the size).
  void inverse(Mat& X) const {
    const int n = static_cast<int>(LU_.rows());
    if constexpr (kEigen) {  // X = P, then L^-1 and U^-1 in place
      X = eigen_.permutationP();
      if (n == 0) return;
      eigen_.matrixLU().template triangularView<Eigen::UnitLower>().solveInPlace(X);
      eigen_.matrixLU().template triangularView<Eigen::Upper>().solveInPlace(X);
      return;
    }
    X.setZero(n, n);
    for (int c = 0; c < n; ++c) {
      for (int i = 0; i < n; ++i) {
        const S* ri = row(i);
        S s = perm_[i] == c ? S(1.0) : S(0.0);
        for (int p = 0; p < i; ++p) s -= ri[p] * X(p, c);
        X(i, c) = s;
      }
      for (int i = n - 1; i >= 0; --i) {
        const S* ri = row(i);
        S s = X(i, c);
        for (int p = i + 1; p < n; ++p) s -= ri[p] * X(p, c);
        X(i, c) = s / ri[i];
      }
    }
  }

 private:
  // Doubles: Eigen's factorization; false for a pivot at most 1e-13 of the largest |a_ij| (or NaN),
  // as the loops above refuse it. LU_ keeps only the size.
  template <class Derived>
  bool compute_eigen(const Eigen::MatrixBase<Derived>& A) {
    const int n = static_cast<int>(A.rows());
    LU_.resize(n, n);
    work_.resize(n);
    if (n == 0) return true;
    const double scale = A.cwiseAbs().maxCoeff();
    eigen_.compute(A);
    for (int i = 0; i < n; ++i)
      if (!(std::abs(eigen_.matrixLU()(i, i)) > 1e-13 * scale)) return false;
    return true;
  }
  S pivot(int i) const {
    if constexpr (kEigen) return eigen_.matrixLU()(i, i);
    else return LU_(i, i);
  }

  // s - sum_{p<len} a[p] b[p]
  static S dot_from(S s, const S* a, const S* b, int len) {
    S s1(0.0), s2(0.0), s3(0.0);
    int p = 0;
    for (; p + 4 <= len; p += 4) {
      s -= a[p] * b[p];
      s1 += a[p + 1] * b[p + 1];
      s2 += a[p + 2] * b[p + 2];
      s3 += a[p + 3] * b[p + 3];
    }
    for (; p < len; ++p) s -= a[p] * b[p];
    return s - ((s1 + s2) + s3);
  }
  S* row(int i) { return LU_.data() + static_cast<std::ptrdiff_t>(i) * LU_.cols(); }
  const S* row(int i) const { return LU_.data() + static_cast<std::ptrdiff_t>(i) * LU_.cols(); }

  Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> LU_;  // L (unit, below) and U, by rows
  std::vector<int> perm_;
  Eigen::Matrix<S, Eigen::Dynamic, 1> u_inv_;  // 1 / U_ii, for the solves
  mutable Eigen::Matrix<S, Eigen::Dynamic, 1> work_;
  std::conditional_t<kEigen, Eigen::PartialPivLU<Eigen::MatrixXd>, char> eigen_{};  // Eigen's only
};

}  // namespace nonholo
