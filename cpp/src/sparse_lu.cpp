// nonholo's sparse SUNMatrix and LU solver (sparse_lu.hpp).
#include "nonholo/sundials/sparse_lu.hpp"

#include <cstring>
#include <memory>
#include <vector>

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <nvector/nvector_serial.h>

#include "nonholo/sundials/compat.hpp"
#include "nonholo/sundials/custom_matrix.hpp"
#include "nonholo/sundials/direct_solver.hpp"

namespace nonholo::sun {

namespace {

using Sparse = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

struct SparseContent {
  Sparse a;
  std::vector<int> diagonal;  // storage position of (i, i)
};

SparseContent& content(SUNMatrix A) { return *static_cast<SparseContent*>(A->content); }

SUNMatrix new_sparse_matrix(const SparseContent& from, SUNContext ctx);

SUNMatrix matrix_clone(SUNMatrix A) { return new_sparse_matrix(content(A), A->sunctx); }

Eigen::Map<Eigen::VectorXd> values(SUNMatrix A) {
  Sparse& a = content(A).a;
  return {a.valuePtr(), a.nonZeros()};
}

bool compatible(SUNMatrix A, SUNMatrix B) {
  return is_sparse_matrix(A) && is_sparse_matrix(B) && content(A).a.nonZeros() == content(B).a.nonZeros() &&
         content(A).a.rows() == content(B).a.rows();
}

int matrix_zero(SUNMatrix A) {
  values(A).setZero();
  return SUNMAT_SUCCESS;
}

int matrix_copy(SUNMatrix A, SUNMatrix B) {  // B = A (same pattern)
  if (!compatible(A, B)) return SUNMAT_ILL_INPUT;
  values(B) = values(A);
  return SUNMAT_SUCCESS;
}

int matrix_scaleadd(sun::real c, SUNMatrix A, SUNMatrix B) {  // A = c A + B (same pattern)
  if (!compatible(A, B)) return SUNMAT_ILL_INPUT;
  values(A) = c * values(A) + values(B);
  return SUNMAT_SUCCESS;
}

int matrix_scaleaddi(sun::real c, SUNMatrix A) {  // A = c A + I
  values(A) *= c;
  for (int p : content(A).diagonal) content(A).a.valuePtr()[p] += 1.0;
  return SUNMAT_SUCCESS;
}

int matrix_matvec(SUNMatrix A, N_Vector x, N_Vector y) {
  const Sparse& a = content(A).a;
  const long n = a.rows();
  if (N_VGetLength(x) != n || N_VGetLength(y) != n) return SUNMAT_ILL_INPUT;
  Eigen::Map<Eigen::VectorXd>(N_VGetArrayPointer(y), n).noalias() = a * Eigen::Map<const Eigen::VectorXd>(N_VGetArrayPointer(x), n);
  return SUNMAT_SUCCESS;
}

int matrix_space(SUNMatrix A, long* lenrw, long* leniw) {
  *lenrw = content(A).a.nonZeros();
  *leniw = content(A).a.nonZeros() + content(A).a.cols() + 1;
  return SUNMAT_SUCCESS;
}

SUNMatrix new_sparse_matrix(const SparseContent& from, SUNContext ctx) {
  SUNMatrix A = new_custom_matrix(ctx, std::make_unique<SparseContent>(from));
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
  Eigen::SparseLU<Sparse, Eigen::COLAMDOrdering<int>> lu;
  bool analyzed = false;
  sunindextype last_flag = 0;
};

LuContent& lu_content(SUNLinearSolver S) { return solver_content<LuContent>(S); }

int solver_setup(SUNLinearSolver S, SUNMatrix A) {
  LuContent& c = lu_content(S);
  if (A == nullptr || !is_sparse_matrix(A)) {
    c.last_flag = SUNLS_ILL_INPUT;
    return SUNLS_ILL_INPUT;
  }
  if (!c.analyzed) {
    c.lu.analyzePattern(content(A).a);
    c.analyzed = true;
  }
  c.lu.factorize(content(A).a);
  const bool ok = c.lu.info() == Eigen::Success;
  c.last_flag = ok ? SUNLS_SUCCESS : SUNLS_LUFACT_FAIL;
  return ok ? SUNLS_SUCCESS : SUNLS_LUFACT_FAIL;
}

int solver_solve(SUNLinearSolver S, SUNMatrix A, N_Vector x, N_Vector b, sun::real) {
  LuContent& c = lu_content(S);
  if (A == nullptr || x == nullptr || b == nullptr || !is_sparse_matrix(A)) {
    c.last_flag = SUNLS_MEM_NULL;
    return SUNLS_MEM_NULL;
  }
  const long n = content(A).a.rows();
  if (N_VGetLength(x) != n || N_VGetLength(b) != n) {
    c.last_flag = SUNLS_ILL_INPUT;
    return SUNLS_ILL_INPUT;
  }
  Eigen::Map<Eigen::VectorXd> xv(N_VGetArrayPointer(x), n);
  const Eigen::VectorXd bv = Eigen::Map<const Eigen::VectorXd>(N_VGetArrayPointer(b), n);  // x may alias b
  xv = c.lu.solve(bv);
  c.last_flag = SUNLS_SUCCESS;
  return SUNLS_SUCCESS;
}

int solver_space(SUNLinearSolver, long* lenrw, long* leniw) {
  *lenrw = 0;
  *leniw = 2;
  return SUNLS_SUCCESS;
}

}  // namespace

MatrixPtr make_sparse_matrix(const JacobianStructure& structure, SUNContext ctx) {
  const int ns = static_cast<int>(structure.outer.size()) - 1;
  SparseContent c;
  c.a = Eigen::Map<const Sparse>(ns, ns, structure.nnz(), structure.outer.data(), structure.inner.data(),
                                 std::vector<double>(structure.nnz(), 0.0).data());
  c.a.makeCompressed();
  c.diagonal.assign(ns, -1);
  for (int col = 0; col < ns; ++col)
    for (int e = structure.outer[col]; e < structure.outer[col + 1]; ++e)
      if (structure.inner[e] == col) c.diagonal[col] = e;
  return MatrixPtr(new_sparse_matrix(c, ctx));
}

bool is_sparse_matrix(SUNMatrix A) { return is_custom_matrix<SparseContent>(A); }

void sparse_scale_add_identity(double c, const double* J, SUNMatrix A) {
  SparseContent& m = content(A);
  double* a = m.a.valuePtr();
  const long nnz = m.a.nonZeros();
  for (long e = 0; e < nnz; ++e) a[e] = c * J[e];
  for (int p : m.diagonal) a[p] += 1.0;
}

LinearSolverPtr make_sparse_lu(SUNContext ctx) {
  return make_direct_solver(ctx, std::make_unique<LuContent>(), solver_setup, solver_solve, solver_space);
}

}  // namespace nonholo::sun
