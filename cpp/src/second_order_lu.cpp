// The halved Newton solve of second-order models (second_order_lu.hpp).
#include "nonholo/sundials/second_order_lu.hpp"

#include <cstring>
#include <memory>
#include <vector>

#include <Eigen/Core>
#include <nvector/nvector_serial.h>

#include "nonholo/sundials/compat.hpp"
#include "nonholo/sundials/custom_matrix.hpp"
#include "nonholo/sundials/dense_lu.hpp"
#include "nonholo/sundials/direct_solver.hpp"

namespace nonholo::sun {

namespace {

struct SecondOrderContent {
  double gamma = 0.0;
  Eigen::MatrixXd S;       // I - gamma F_v - gamma^2 F_q, then its LU factors (column-major)
  Eigen::MatrixXd gF_q;    // gamma F_q
  Eigen::VectorXd x_v;     // the solve's scratch
};

SecondOrderContent& content(SUNMatrix A) { return *static_cast<SecondOrderContent*>(A->content); }
int half(SUNMatrix A) { return static_cast<int>(content(A).S.rows()); }

SUNMatrix new_matrix(int n, SUNContext ctx);

SUNMatrix matrix_clone(SUNMatrix A) { return new_matrix(half(A), A->sunctx); }

int matrix_zero(SUNMatrix A) {
  SecondOrderContent& c = content(A);
  c.gamma = 0.0;
  c.S.setZero();
  c.gF_q.setZero();
  return SUNMAT_SUCCESS;
}

int matrix_copy(SUNMatrix A, SUNMatrix B) {
  if (!is_second_order_matrix(B) || half(A) != half(B)) return SUNMAT_ILL_INPUT;
  content(B).gamma = content(A).gamma;
  content(B).S = content(A).S;
  content(B).gF_q = content(A).gF_q;
  return SUNMAT_SUCCESS;
}

int matrix_space(SUNMatrix A, long* lenrw, long* leniw) {
  *lenrw = 1 + 2 * static_cast<long>(content(A).S.size());
  *leniw = 1;
  return SUNMAT_SUCCESS;
}

SUNMatrix new_matrix(int n, SUNContext ctx) {
  auto owned = std::make_unique<SecondOrderContent>();
  owned->S.setZero(n, n);
  owned->gF_q.setZero(n, n);
  owned->x_v.setZero(n);
  SUNMatrix A = new_custom_matrix(ctx, std::move(owned));
  if (A == nullptr) return nullptr;
  A->ops->clone = matrix_clone;
  A->ops->zero = matrix_zero;
  A->ops->copy = matrix_copy;
  A->ops->space = matrix_space;
  return A;
}

// ------------------------------------------------------------------------------ the solver

struct SecondOrderLuContent {
  std::vector<int> pivots;
  sunindextype last_flag = 0;
};

SecondOrderLuContent& lu_content(SUNLinearSolver S) { return solver_content<SecondOrderLuContent>(S); }

int solver_setup(SUNLinearSolver LS, SUNMatrix A) {
  SecondOrderLuContent& c = lu_content(LS);
  if (A == nullptr || !is_second_order_matrix(A) || half(A) != static_cast<int>(c.pivots.size())) {
    c.last_flag = SUNLS_ILL_INPUT;
    return SUNLS_ILL_INPUT;
  }
  c.last_flag = lu_factor(content(A).S.data(), half(A), c.pivots.data());
  return c.last_flag > 0 ? SUNLS_LUFACT_FAIL : SUNLS_SUCCESS;
}

// x_v = S^-1 (b_v + gamma F_q b_q), then x_q = b_q + gamma x_v (x and b may be the same vector).
int solver_solve(SUNLinearSolver LS, SUNMatrix A, N_Vector x, N_Vector b, sun::real) {
  SecondOrderLuContent& c = lu_content(LS);
  const int n = static_cast<int>(c.pivots.size());
  if (A == nullptr || x == nullptr || b == nullptr || N_VGetLength(x) != 2 * n || N_VGetLength(b) != 2 * n) {
    c.last_flag = SUNLS_MEM_NULL;
    return SUNLS_MEM_NULL;
  }
  SecondOrderContent& m = content(A);
  Eigen::Map<const Eigen::VectorXd> b_q(N_VGetArrayPointer(b), n), b_v(N_VGetArrayPointer(b) + n, n);
  m.x_v = b_v;
  m.x_v.noalias() += m.gF_q * b_q;
  lu_solve(m.S.data(), n, c.pivots.data(), m.x_v.data());
  Eigen::Map<Eigen::VectorXd> x_q(N_VGetArrayPointer(x), n), x_v(N_VGetArrayPointer(x) + n, n);
  x_q = b_q + m.gamma * m.x_v;
  x_v = m.x_v;
  c.last_flag = SUNLS_SUCCESS;
  return SUNLS_SUCCESS;
}

int solver_space(SUNLinearSolver LS, long* lenrw, long* leniw) {
  *lenrw = 0;
  *leniw = 2 + static_cast<long>(lu_content(LS).pivots.size());
  return SUNLS_SUCCESS;
}

}  // namespace

MatrixPtr make_second_order_matrix(int n, SUNContext ctx) { return MatrixPtr(new_matrix(n, ctx)); }

bool is_second_order_matrix(SUNMatrix A) {
  return is_custom_matrix<SecondOrderContent>(A);
}

void second_order_form(double gamma, const double* J, SUNMatrix A) {
  SecondOrderContent& c = content(A);
  const int n = half(A);
  Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>> F_q(J + n, n, n, Eigen::OuterStride<>(2 * n));
  Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>> F_v(J + n + 2L * n * n, n, n,
                                                                  Eigen::OuterStride<>(2 * n));
  c.gamma = gamma;
  c.gF_q = gamma * F_q;
  c.S = -gamma * (F_v + c.gF_q);
  c.S.diagonal().array() += 1.0;
}

LinearSolverPtr make_second_order_lu(int n, SUNContext ctx) {
  auto content = std::make_unique<SecondOrderLuContent>();
  content->pivots.assign(static_cast<std::size_t>(std::max(n, 0)), 0);
  return make_direct_solver(ctx, std::move(content), solver_setup, solver_solve, solver_space);
}

}  // namespace nonholo::sun
