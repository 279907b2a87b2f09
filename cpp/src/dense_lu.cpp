// nonholo's dense SUNMatrix and LU solver (dense_lu.hpp).
#include "nonholo/sundials/dense_lu.hpp"

#include "nonholo/sundials/compat.hpp"
#include "nonholo/sundials/custom_matrix.hpp"
#include "nonholo/sundials/direct_solver.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <nvector/nvector_serial.h>

namespace nonholo::sun {

namespace {

// ------------------------------------------------------------------------------ kernels

// LAPACK's unblocked getrf (right-looking, column by column), in SUNDIALS' order of operations.
// A left-looking variant (the same updates per entry in the same order, so the same bits, four
// columns' updates per pass) factors n = 68 in 26 us against 43 us, but made no measurable
// difference to the friction chain N = 32 (3.61 against 3.64 ms, medians of 6 interleaved runs),
// and was dropped.
int lu_factor_impl(double* a, int n, int* pivots) {
  for (int k = 0; k < n; ++k) {
    double* col_k = a + static_cast<long>(k) * n;
    int p = k;
    double largest = std::abs(col_k[k]);
    for (int i = k + 1; i < n; ++i) {
      const double v = std::abs(col_k[i]);
      if (v > largest) {
        largest = v;
        p = i;
      }
    }
    pivots[k] = p;
    if (col_k[p] == 0.0) return k + 1;
    if (p != k)
      for (int j = 0; j < n; ++j) std::swap(a[k + static_cast<long>(j) * n], a[p + static_cast<long>(j) * n]);
    const double scale = 1.0 / col_k[k];
    for (int i = k + 1; i < n; ++i) col_k[i] *= scale;
    for (int j = k + 1; j < n; ++j) {
      double* col_j = a + static_cast<long>(j) * n;
      const double a_kj = col_j[k];
      if (a_kj != 0.0)
        for (int i = k + 1; i < n; ++i) col_j[i] -= a_kj * col_k[i];
    }
  }
  return 0;
}

// getrs: P b, then L y = P b, then U x = y.
void lu_solve_impl(const double* lu, int n, const int* pivots, double* b) {
  for (int k = 0; k < n; ++k)
    if (pivots[k] != k) std::swap(b[k], b[pivots[k]]);
  // L y = P b (unit diagonal)
  for (int k = 0; k < n - 1; ++k) {
    const double* col_k = lu + static_cast<long>(k) * n;
    const double b_k = b[k];
    for (int i = k + 1; i < n; ++i) b[i] -= col_k[i] * b_k;
  }
  // U x = y
  for (int k = n - 1; k > 0; --k) {
    const double* col_k = lu + static_cast<long>(k) * n;
    b[k] /= col_k[k];
    const double b_k = b[k];
    for (int i = 0; i < k; ++i) b[i] -= col_k[i] * b_k;
  }
  if (n > 0) b[0] /= lu[0];
}

// ------------------------------------------------------------------------------ the matrix

struct DenseContent {
  Eigen::MatrixXd a;  // column-major, contiguous
};

DenseContent& content(SUNMatrix A) { return *static_cast<DenseContent*>(A->content); }

SUNMatrix new_dense_matrix(int n, SUNContext ctx);

SUNMatrix matrix_clone(SUNMatrix A) {
  return new_dense_matrix(static_cast<int>(content(A).a.rows()), A->sunctx);
}

int matrix_zero(SUNMatrix A) {
  content(A).a.setZero();
  return SUNMAT_SUCCESS;
}

bool compatible(SUNMatrix A, SUNMatrix B) {
  return is_dense_matrix(A) && is_dense_matrix(B) && content(A).a.rows() == content(B).a.rows();
}

// B = A
int matrix_copy(SUNMatrix A, SUNMatrix B) {
  if (!compatible(A, B)) return SUNMAT_ILL_INPUT;
  content(B).a = content(A).a;
  return SUNMAT_SUCCESS;
}

// A = c A + B
int matrix_scaleadd(sun::real c, SUNMatrix A, SUNMatrix B) {
  if (!compatible(A, B)) return SUNMAT_ILL_INPUT;
  Eigen::MatrixXd& a = content(A).a;
  const Eigen::MatrixXd& b = content(B).a;
  const long size = a.size();
  double* pa = a.data();
  const double* pb = b.data();
  for (long i = 0; i < size; ++i) pa[i] = c * pa[i] + pb[i];
  return SUNMAT_SUCCESS;
}

// A = c A + I
int matrix_scaleaddi(sun::real c, SUNMatrix A) {
  Eigen::MatrixXd& a = content(A).a;
  scale_add_identity(c, a.data(), static_cast<int>(a.rows()), a.data());
  return SUNMAT_SUCCESS;
}

// y = A x
int matrix_matvec(SUNMatrix A, N_Vector x, N_Vector y) {
  const Eigen::MatrixXd& a = content(A).a;
  const long n = a.rows();
  if (N_VGetLength(x) != n || N_VGetLength(y) != n) return SUNMAT_ILL_INPUT;
  Eigen::Map<const Eigen::VectorXd> xv(N_VGetArrayPointer(x), n);
  Eigen::Map<Eigen::VectorXd> yv(N_VGetArrayPointer(y), n);
  yv.noalias() = a * xv;
  return SUNMAT_SUCCESS;
}

int matrix_space(SUNMatrix A, long* lenrw, long* leniw) {
  *lenrw = static_cast<long>(content(A).a.size());
  *leniw = 1;
  return SUNMAT_SUCCESS;
}

SUNMatrix new_dense_matrix(int n, SUNContext ctx) {
  auto owned = std::make_unique<DenseContent>();
  owned->a.setZero(n, n);
  SUNMatrix A = new_custom_matrix(ctx, std::move(owned));
  if (A == nullptr) return nullptr;
  A->ops->clone = matrix_clone;
  A->ops->zero = matrix_zero;
  A->ops->copy = matrix_copy;
  A->ops->scaleadd = matrix_scaleadd;
  A->ops->scaleaddi = matrix_scaleaddi;
  A->ops->matvec = matrix_matvec;
  A->ops->space = matrix_space;
  return A;
}

// ------------------------------------------------------------------------------ the solver

struct LuContent {
  std::vector<int> pivots;
  sunindextype last_flag = 0;
};

LuContent& lu_content(SUNLinearSolver S) { return solver_content<LuContent>(S); }

int solver_setup(SUNLinearSolver S, SUNMatrix A) {
  LuContent& c = lu_content(S);
  if (A == nullptr || !is_dense_matrix(A) || dense_matrix_size(A) != static_cast<int>(c.pivots.size())) {
    c.last_flag = SUNLS_ILL_INPUT;
    return SUNLS_ILL_INPUT;
  }
  c.last_flag = lu_factor(dense_matrix_data(A), dense_matrix_size(A), c.pivots.data());
  return c.last_flag > 0 ? SUNLS_LUFACT_FAIL : SUNLS_SUCCESS;
}

int solver_solve(SUNLinearSolver S, SUNMatrix A, N_Vector x, N_Vector b, sun::real) {
  LuContent& c = lu_content(S);
  const int n = static_cast<int>(c.pivots.size());
  if (A == nullptr || x == nullptr || b == nullptr || N_VGetLength(x) != n || N_VGetLength(b) != n) {
    c.last_flag = SUNLS_MEM_NULL;
    return SUNLS_MEM_NULL;
  }
  double* xd = N_VGetArrayPointer(x);
  const double* bd = N_VGetArrayPointer(b);
  if (xd != bd) std::memcpy(xd, bd, sizeof(double) * static_cast<std::size_t>(n));
  lu_solve(dense_matrix_data(A), n, c.pivots.data(), xd);
  c.last_flag = SUNLS_SUCCESS;
  return SUNLS_SUCCESS;
}

int solver_space(SUNLinearSolver S, long* lenrw, long* leniw) {
  *lenrw = 0;
  *leniw = 2 + static_cast<long>(lu_content(S).pivots.size());
  return SUNLS_SUCCESS;
}

}  // namespace

// ------------------------------------------------------------------------------ public

// Fixed-size instances (N = 4, 6, 8: loops unrolled at compile time) were measured no faster than
// these loops (a setup and two solves: 144 / 260 / 362 ns against 137 / 245 / 373 ns): the
// time is the latency of the divisions and of the substitutions' dependency chains.
int lu_factor(double* a, int n, int* pivots) { return lu_factor_impl(a, n, pivots); }

void lu_solve(const double* lu, int n, const int* pivots, double* b) { lu_solve_impl(lu, n, pivots, b); }

void scale_add_identity(double c, const double* J, int n, double* A) {
  const long size = static_cast<long>(n) * n;
  for (long i = 0; i < size; ++i) A[i] = c * J[i];
  for (int i = 0; i < n; ++i) A[i + static_cast<long>(i) * n] += 1.0;
}

MatrixPtr make_dense_matrix(int n, SUNContext ctx) { return MatrixPtr(new_dense_matrix(n, ctx)); }

double* dense_matrix_data(SUNMatrix A) { return content(A).a.data(); }

int dense_matrix_size(SUNMatrix A) { return static_cast<int>(content(A).a.rows()); }

bool is_dense_matrix(SUNMatrix A) { return is_custom_matrix<DenseContent>(A); }

LinearSolverPtr make_dense_lu(int n, SUNContext ctx) {
  auto content = std::make_unique<LuContent>();
  content->pivots.assign(static_cast<std::size_t>(std::max(n, 0)), 0);
  return make_direct_solver(ctx, std::move(content), solver_setup, solver_solve, solver_space);
}

}  // namespace nonholo::sun
