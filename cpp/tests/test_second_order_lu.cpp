// The halved Newton solve of second-order models (second_order_lu.hpp) against the full system:
// for J = [0, I; F_q, F_v] with random, stiff and badly scaled blocks and a range of gamma, the
// solution of (I - gamma J) x = b has a residual at rounding level and agrees with Eigen's
// full-pivoting LU of the 2n x 2n matrix to the accuracy its condition allows; x and b may be
// one vector; a singular Schur complement gives the dense solver's recoverable failure and
// pivot column; clone, copy and zero keep the matrix's kind and size.
#include <cmath>
#include <cstring>
#include <random>

#include <Eigen/Dense>
#include <nvector/nvector_serial.h>

#include "check.hpp"
#include "nonholo/sundials/compat.hpp"
#include "nonholo/sundials/handles.hpp"
#include "nonholo/sundials/second_order_lu.hpp"

namespace sun = nonholo::sun;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

// J (2n x 2n, column-major) of q' = v, v' = f with f's blocks F_q, F_v.
MatrixXd second_order_jacobian(const MatrixXd& F_q, const MatrixXd& F_v) {
  const int n = static_cast<int>(F_q.rows());
  MatrixXd J = MatrixXd::Zero(2 * n, 2 * n);
  J.topRightCorner(n, n).setIdentity();
  J.bottomLeftCorner(n, n) = F_q;
  J.bottomRightCorner(n, n) = F_v;
  return J;
}

struct Halved {
  int setup_flag = 0;
  long last_flag = 0;
  VectorXd x;
};

// (I - gamma J) x = b through the SUNDIALS calls CVODE makes; `in_place`: x and b one vector.
Halved solve_halved(const MatrixXd& J, double gamma, const VectorXd& b, bool in_place, SUNContext ctx) {
  const int n = static_cast<int>(J.rows()) / 2;
  sun::MatrixPtr A = sun::make_second_order_matrix(n, ctx);
  NONHOLO_CHECK(sun::is_second_order_matrix(A.get()));
  sun::second_order_form(gamma, J.data(), A.get());
  sun::LinearSolverPtr ls = sun::make_second_order_lu(n, ctx);
  NONHOLO_CHECK(SUNLinSolGetType(ls.get()) == SUNLINEARSOLVER_DIRECT);
  NONHOLO_CHECK_EQ(SUNLinSolInitialize(ls.get()), 0);
  Halved h;
  h.setup_flag = SUNLinSolSetup(ls.get(), A.get());
  h.last_flag = static_cast<long>(SUNLinSolLastFlag(ls.get()));
  if (h.setup_flag != 0) return h;
  sun::VectorPtr x(N_VNew_Serial(2 * n, ctx)), rhs(N_VNew_Serial(2 * n, ctx));
  std::memcpy(N_VGetArrayPointer(rhs.get()), b.data(), sizeof(double) * 2 * n);
  N_Vector out = in_place ? rhs.get() : x.get();
  NONHOLO_CHECK_EQ(SUNLinSolSolve(ls.get(), A.get(), out, rhs.get(), 0.0), 0);
  h.x = Eigen::Map<VectorXd>(N_VGetArrayPointer(out), 2 * n);
  return h;
}

void check_solve(int n, double scale_q, double scale_v, double gamma, std::mt19937& rng, SUNContext ctx) {
  std::normal_distribution<double> normal;
  MatrixXd F_q(n, n), F_v(n, n);
  for (int i = 0; i < F_q.size(); ++i) {
    F_q.data()[i] = scale_q * normal(rng);
    F_v.data()[i] = scale_v * normal(rng);
  }
  F_v.diagonal().array() -= scale_v * n;  // damped, as friction makes F_v
  const MatrixXd J = second_order_jacobian(F_q, F_v);
  const MatrixXd M = MatrixXd::Identity(2 * n, 2 * n) - gamma * J;
  VectorXd b(2 * n);
  for (int i = 0; i < b.size(); ++i) b[i] = normal(rng);
  const Eigen::FullPivLU<MatrixXd> full(M);
  const VectorXd reference = full.solve(b);
  const double cond = M.norm() * full.inverse().norm();
  for (bool in_place : {false, true}) {
    const Halved h = solve_halved(J, gamma, b, in_place, ctx);
    NONHOLO_CHECK_EQ(h.setup_flag, 0);
    const double residual = (M * h.x - b).norm() / (M.norm() * h.x.norm() + b.norm());
    NONHOLO_CHECK(residual < 1e-14 * n);
    NONHOLO_CHECK((h.x - reference).norm() <= 1e-13 * n * cond * reference.norm());
  }
}

}  // namespace

int main() {
  SUNContext raw = nullptr;
  sun::create_context(&raw);
  sun::ContextPtr ctx(raw);
  std::mt19937 rng(7);
  for (int n : {1, 2, 3, 8, 17, 40})
    for (double gamma : {1e-5, 1e-2, 0.5})
      for (auto [sq, sv] : {std::pair{1.0, 1.0}, std::pair{1e4, 1e2}, std::pair{1e-3, 1e6}})
        check_solve(n, sq, sv, gamma, rng, ctx.get());

  // S = I - gamma F_v - gamma^2 F_q singular: F_v = I / gamma, F_q = 0 (column 1 first)
  const int n = 4;
  const double gamma = 0.25;
  const MatrixXd J = second_order_jacobian(MatrixXd::Zero(n, n), MatrixXd::Identity(n, n) / gamma);
  const Halved h = solve_halved(J, gamma, VectorXd::Ones(2 * n), false, ctx.get());
  NONHOLO_CHECK_EQ(h.setup_flag, SUNLS_LUFACT_FAIL);
  NONHOLO_CHECK_EQ(h.last_flag, 1L);

  // clone, copy and zero keep the kind and the size
  sun::MatrixPtr A = sun::make_second_order_matrix(n, ctx.get());
  sun::second_order_form(gamma, J.data(), A.get());
  sun::MatrixPtr B(SUNMatClone(A.get()));
  NONHOLO_CHECK(sun::is_second_order_matrix(B.get()));
  NONHOLO_CHECK_EQ(SUNMatCopy(A.get(), B.get()), SUNMAT_SUCCESS);
  NONHOLO_CHECK_EQ(SUNMatZero(B.get()), SUNMAT_SUCCESS);
  sun::MatrixPtr wrong = sun::make_second_order_matrix(n + 1, ctx.get());
  NONHOLO_CHECK(SUNMatCopy(A.get(), wrong.get()) != SUNMAT_SUCCESS);
  return nonholo::testing::failures;
}
