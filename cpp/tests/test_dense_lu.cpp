// nonholo's dense matrix and LU solver (dense_lu.hpp) against SUNDIALS' dense solver and Eigen:
// factors and solutions equal SUNLinSol_Dense's bit for bit on random, near-singular and scaled
// matrices of many sizes (the fixed-size kernels included) and solve to the accuracy the
// condition number allows (Eigen's full-pivoting LU as reference); a singular matrix gives the
// dense solver's recoverable failure and pivot column; the matrix operations CVLS may call do
// what they say; CVODE runs with either solver take the same steps to the same bits on a stiff
// linear system whose solution is known, and fail the same way (CV_CONV_FAILURE, no crash) when
// every iteration matrix is singular.
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <Eigen/Dense>
#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "check.hpp"
#include "nonholo/sundials/compat.hpp"
#include "nonholo/sundials/dense_lu.hpp"
#include "nonholo/sundials/handles.hpp"

namespace sun = nonholo::sun;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

struct Solved {
  int setup_flag = 0;
  long last_flag = 0;
  MatrixXd factors;
  VectorXd x;
};

// SUNDIALS' dense matrix and solver on (A, b).
Solved sundials_dense(const MatrixXd& A, const VectorXd& b, SUNContext ctx) {
  const int n = static_cast<int>(A.rows());
  sun::MatrixPtr M(SUNDenseMatrix(n, n, ctx));
  sun::VectorPtr x(N_VNew_Serial(n, ctx)), rhs(N_VNew_Serial(n, ctx));
  std::memcpy(SUNDenseMatrix_Data(M.get()), A.data(), sizeof(double) * n * n);
  std::memcpy(N_VGetArrayPointer(rhs.get()), b.data(), sizeof(double) * n);
  sun::LinearSolverPtr ls(SUNLinSol_Dense(x.get(), M.get(), ctx));
  SUNLinSolInitialize(ls.get());
  Solved s;
  s.setup_flag = SUNLinSolSetup(ls.get(), M.get());
  s.last_flag = static_cast<long>(SUNLinSolLastFlag(ls.get()));
  s.factors = Eigen::Map<MatrixXd>(SUNDenseMatrix_Data(M.get()), n, n);
  if (s.setup_flag == 0) {
    SUNLinSolSolve(ls.get(), M.get(), x.get(), rhs.get(), 0.0);
    s.x = Eigen::Map<VectorXd>(N_VGetArrayPointer(x.get()), n);
  }
  return s;
}

// nonholo's, through the same SUNDIALS calls.
Solved nonholo_dense(const MatrixXd& A, const VectorXd& b, SUNContext ctx) {
  const int n = static_cast<int>(A.rows());
  sun::MatrixPtr M = sun::make_dense_matrix(n, ctx);
  sun::VectorPtr x(N_VNew_Serial(n, ctx)), rhs(N_VNew_Serial(n, ctx));
  std::memcpy(sun::dense_matrix_data(M.get()), A.data(), sizeof(double) * n * n);
  std::memcpy(N_VGetArrayPointer(rhs.get()), b.data(), sizeof(double) * n);
  sun::LinearSolverPtr ls = sun::make_dense_lu(n, ctx);
  NONHOLO_CHECK(SUNLinSolGetType(ls.get()) == SUNLINEARSOLVER_DIRECT);
  NONHOLO_CHECK_EQ(SUNLinSolInitialize(ls.get()), 0);
  Solved s;
  s.setup_flag = SUNLinSolSetup(ls.get(), M.get());
  s.last_flag = static_cast<long>(SUNLinSolLastFlag(ls.get()));
  s.factors = Eigen::Map<MatrixXd>(sun::dense_matrix_data(M.get()), n, n);
  if (s.setup_flag == 0) {
    NONHOLO_CHECK_EQ(SUNLinSolSolve(ls.get(), M.get(), x.get(), rhs.get(), 0.0), 0);
    s.x = Eigen::Map<VectorXd>(N_VGetArrayPointer(x.get()), n);
  }
  return s;
}

bool bitwise_equal(const MatrixXd& a, const MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

// Random A with singular values spread over [1 / cond, 1] (orthogonal factors from QR).
MatrixXd with_condition(int n, double cond, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  auto random_orthogonal = [&] {
    MatrixXd G(n, n);
    for (int i = 0; i < G.size(); ++i) G.data()[i] = normal(rng);
    return MatrixXd(Eigen::HouseholderQR<MatrixXd>(G).householderQ());
  };
  VectorXd s(n);
  for (int i = 0; i < n; ++i) s[i] = n == 1 ? 1.0 : std::pow(cond, -double(i) / (n - 1));
  return random_orthogonal() * s.asDiagonal() * random_orthogonal().transpose();
}

void check_against_sundials_and_eigen(const MatrixXd& A, const VectorXd& b, double cond, SUNContext ctx) {
  const Solved ours = nonholo_dense(A, b, ctx), theirs = sundials_dense(A, b, ctx);
  NONHOLO_CHECK_EQ(ours.setup_flag, 0);
  NONHOLO_CHECK_EQ(theirs.setup_flag, 0);
  NONHOLO_CHECK(bitwise_equal(ours.factors, theirs.factors));
  NONHOLO_CHECK(bitwise_equal(ours.x, theirs.x));
  // the accuracy a backward-stable solve allows: |x - x*| / |x*| <~ cond * n * eps
  const VectorXd reference = A.fullPivLu().solve(b);
  const double error = (ours.x - reference).norm() / reference.norm();
  NONHOLO_CHECK(error < 50.0 * A.rows() * cond * 2.2e-16);
  // the residual is small whatever the condition
  NONHOLO_CHECK((A * ours.x - b).norm() <= 1e-13 * A.rows() * (A.norm() * ours.x.norm() + b.norm()));
}

// ------------------------------------------------------------------------- CVODE runs

// y' = M y, M = V diag(lambda) V^-1 with lambda from -1 to -1e4 (stiff): y(t) = V e^{lambda t} V^-1 y0.
struct Linear {
  MatrixXd M, V;
  VectorXd lambda;
  bool singular = false;  // the linear-system function writes a singular iteration matrix
};

// The user data of a run: the system and the Jacobian kept by the linear-system function.
struct Saved {
  Linear* linear;
  std::vector<double> J;
};

int linear_rhs(sun::real, N_Vector y, N_Vector ydot, void* data) {
  const Linear& L = *static_cast<Saved*>(data)->linear;
  const long n = L.M.rows();
  Eigen::Map<VectorXd>(N_VGetArrayPointer(ydot), n) = L.M * Eigen::Map<const VectorXd>(N_VGetArrayPointer(y), n);
  return 0;
}

int linear_jac(sun::real, N_Vector, N_Vector, SUNMatrix J, void* data, N_Vector, N_Vector, N_Vector) {
  const Linear& L = *static_cast<Saved*>(data)->linear;
  Eigen::Map<MatrixXd>(SUNDenseMatrix_Data(J), L.M.rows(), L.M.cols()) = L.M;
  return 0;
}

// The integrator's linear-system function (integrate/cvode_callbacks.cpp), with J kept beside the matrix.

int linear_linsys(sun::real, N_Vector, N_Vector, SUNMatrix A, sunbooleantype jok, sunbooleantype* jcur,
                  sun::real gamma, void* data, N_Vector, N_Vector, N_Vector) {
  auto* s = static_cast<Saved*>(data);
  const int n = static_cast<int>(s->linear->M.rows());
  if (!jok) {
    Eigen::Map<MatrixXd>(s->J.data(), n, n) = s->linear->M;
    *jcur = SUNTRUE;
  } else {
    *jcur = SUNFALSE;
  }
  double* a = sun::is_dense_matrix(A) ? sun::dense_matrix_data(A) : SUNDenseMatrix_Data(A);
  sun::scale_add_identity(-gamma, s->J.data(), n, a);
  if (s->linear->singular)
    for (int j = 0; j < n; ++j) a[1 + j * n] = 0.0;  // row 1 of I - gamma J zero: singular for every gamma
  return 0;
}

struct RunResult {
  int flag = 0;
  long steps = 0, jacobians = 0, setups = 0;
  VectorXd y;
};

// ours = false: SUNDIALS' dense matrix and solver with CVLS's own linear system (a Jacobian
// function); with `singular`, SUNDIALS' dense solver behind the same linear-system function as ours.
RunResult run_linear(Linear& L, const VectorXd& y0, double tf, bool ours) {
  SUNContext raw = nullptr;
  sun::create_context(&raw);
  sun::ContextPtr ctx(raw);
  const int n = static_cast<int>(y0.size());
  sun::VectorPtr y(N_VNew_Serial(n, ctx.get()));
  Eigen::Map<VectorXd>(N_VGetArrayPointer(y.get()), n) = y0;
  sun::MatrixPtr A = ours ? sun::make_dense_matrix(n, ctx.get()) : sun::MatrixPtr(SUNDenseMatrix(n, n, ctx.get()));
  sun::LinearSolverPtr ls =
      ours ? sun::make_dense_lu(n, ctx.get()) : sun::LinearSolverPtr(SUNLinSol_Dense(y.get(), A.get(), ctx.get()));
  Saved saved{&L, std::vector<double>(static_cast<std::size_t>(n) * n)};
  sun::CvodePtr mem(CVodeCreate(CV_BDF, ctx.get()));
  sun::MessageSink sink;
  sun::capture_messages(ctx.get(), mem.get(), &sink);
  CVodeInit(mem.get(), linear_rhs, 0.0, y.get());
  CVodeSStolerances(mem.get(), 1e-8, 1e-10);
  CVodeSetMaxNumSteps(mem.get(), 100000);
  CVodeSetLinearSolver(mem.get(), ls.get(), A.get());
  CVodeSetUserData(mem.get(), &saved);
  if (ours || L.singular)
    CVodeSetLinSysFn(mem.get(), linear_linsys);
  else
    CVodeSetJacFn(mem.get(), linear_jac);
  CVodeSetStopTime(mem.get(), tf);
  RunResult r;
  sun::real t = 0.0;
  r.flag = CVode(mem.get(), tf, y.get(), &t, CV_NORMAL);
  CVodeGetNumSteps(mem.get(), &r.steps);
  CVodeGetNumJacEvals(mem.get(), &r.jacobians);
  CVodeGetNumLinSolvSetups(mem.get(), &r.setups);
  r.y = Eigen::Map<VectorXd>(N_VGetArrayPointer(y.get()), n);
  mem.reset();
  return r;
}

}  // namespace

int main() {
  SUNContext raw = nullptr;
  sun::create_context(&raw);
  sun::ContextPtr ctx(raw);
  std::mt19937 rng(20261125);
  std::normal_distribution<double> normal;

  // random matrices of small and larger sizes
  for (int n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 20, 23, 24, 27, 41, 68}) {
    for (double cond : {10.0, 1e4}) {
      const MatrixXd A = with_condition(n, cond, rng);
      VectorXd b(n);
      for (int i = 0; i < n; ++i) b[i] = normal(rng);
      check_against_sundials_and_eigen(A, b, cond, ctx.get());
    }
    // an iteration matrix I - gamma J with a stiff J, badly scaled rows
    MatrixXd J(n, n);
    for (int i = 0; i < J.size(); ++i) J.data()[i] = 1e3 * normal(rng);
    MatrixXd A = MatrixXd::Identity(n, n) - 0.01 * J;
    VectorXd b = VectorXd::Random(n);
    const double cond = A.jacobiSvd().singularValues()(0) / A.jacobiSvd().singularValues()(n - 1);
    check_against_sundials_and_eigen(A, b, cond, ctx.get());
  }

  // sparse (many exact zeros: the updates skipped for zero multipliers), both loops
  for (int n : {10, 33}) {
    MatrixXd A = MatrixXd::Identity(n, n) * 4.0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if ((i * 7 + j * 3) % 5 == 0) A(i, j) += normal(rng);
    check_against_sundials_and_eigen(A, VectorXd::Ones(n), A.jacobiSvd().singularValues()(0) /
                                                            A.jacobiSvd().singularValues()(n - 1), ctx.get());
  }

  // near-singular: singular values down to 1e-12 (solution error ~ cond eps, the same bits as SUNDIALS)
  for (int n : {6, 11, 30}) {
    const MatrixXd A = with_condition(n, 1e12, rng);
    const VectorXd b = VectorXd::Random(n);
    check_against_sundials_and_eigen(A, b, 1e12, ctx.get());
  }

  // singular: a zero column, and a row repeated exactly -> the dense solver's recoverable
  // failure (SUNLS_LUFACT_FAIL) with the same zero-pivot column
  for (int n : {4, 6, 9, 30}) {
    MatrixXd A = with_condition(n, 10.0, rng);
    A.col(2).setZero();
    MatrixXd B = with_condition(n, 10.0, rng);
    B.col(n - 1).setZero();
    B(n - 1, n - 1) = 0.0;
    MatrixXd C(n, n);
    for (int i = 0; i < C.size(); ++i) C.data()[i] = std::round(4 * normal(rng));
    C.row(n - 1) = C.row(0);
    C.col(n - 1).setZero();
    for (const MatrixXd* M : {&A, &B, &C}) {
      const VectorXd b = VectorXd::Ones(n);
      const Solved ours = nonholo_dense(*M, b, ctx.get()), theirs = sundials_dense(*M, b, ctx.get());
      NONHOLO_CHECK_EQ(ours.setup_flag, SUNLS_LUFACT_FAIL);
      NONHOLO_CHECK_EQ(theirs.setup_flag, SUNLS_LUFACT_FAIL);
      NONHOLO_CHECK_EQ(ours.last_flag, theirs.last_flag);
      NONHOLO_CHECK(ours.last_flag >= 1 && ours.last_flag <= n);
    }
  }

  // the kernels alone: the factors reproduce P A = L U
  {
    const int n = 7;
    const MatrixXd A = with_condition(n, 100.0, rng);
    MatrixXd LU = A;
    std::vector<int> piv(n);
    NONHOLO_CHECK_EQ(sun::lu_factor(LU.data(), n, piv.data()), 0);
    MatrixXd PA = A;
    for (int k = 0; k < n; ++k) PA.row(k).swap(PA.row(piv[k]));
    const MatrixXd L = MatrixXd(LU.triangularView<Eigen::UnitLower>()), U = MatrixXd(LU.triangularView<Eigen::Upper>());
    NONHOLO_CHECK((L * U - PA).norm() < 1e-14 * A.norm());
  }

  // the matrix operations CVLS may call
  {
    const int n = 5;
    sun::MatrixPtr A = sun::make_dense_matrix(n, ctx.get());
    NONHOLO_CHECK(sun::is_dense_matrix(A.get()));
    NONHOLO_CHECK(SUNMatGetID(A.get()) == SUNMATRIX_CUSTOM);
    sun::MatrixPtr B(SUNMatClone(A.get()));
    NONHOLO_CHECK(sun::is_dense_matrix(B.get()) && sun::dense_matrix_size(B.get()) == n);
    Eigen::Map<MatrixXd> a(sun::dense_matrix_data(A.get()), n, n), bm(sun::dense_matrix_data(B.get()), n, n);
    NONHOLO_CHECK(a.isZero(0.0));
    const MatrixXd J = MatrixXd::Random(n, n), K = MatrixXd::Random(n, n);
    a = J;
    NONHOLO_CHECK_EQ(SUNMatCopy(A.get(), B.get()), 0);
    NONHOLO_CHECK(bitwise_equal(bm, J));
    NONHOLO_CHECK_EQ(SUNMatScaleAddI(-0.25, B.get()), 0);
    NONHOLO_CHECK((bm - (MatrixXd::Identity(n, n) - 0.25 * J)).norm() == 0.0);
    bm = K;
    NONHOLO_CHECK_EQ(SUNMatScaleAdd(2.0, A.get(), B.get()), 0);
    NONHOLO_CHECK((a - (2.0 * J + K)).norm() == 0.0);
    sun::VectorPtr x(N_VNew_Serial(n, ctx.get())), y(N_VNew_Serial(n, ctx.get()));
    Eigen::Map<VectorXd> xv(N_VGetArrayPointer(x.get()), n), yv(N_VGetArrayPointer(y.get()), n);
    xv = VectorXd::Random(n);
    NONHOLO_CHECK_EQ(SUNMatMatvec(A.get(), x.get(), y.get()), 0);
    NONHOLO_CHECK((yv - a * xv).norm() < 1e-15 * (a.norm() * xv.norm()));
    NONHOLO_CHECK_EQ(SUNMatZero(A.get()), 0);
    NONHOLO_CHECK(a.isZero(0.0));
    sun::MatrixPtr C = sun::make_dense_matrix(n + 1, ctx.get());
    NONHOLO_CHECK(SUNMatCopy(A.get(), C.get()) != 0);  // incompatible sizes
    sun::MatrixPtr D(SUNDenseMatrix(n, n, ctx.get()));
    NONHOLO_CHECK(SUNMatCopy(A.get(), D.get()) != 0);  // another kind of matrix
    NONHOLO_CHECK(!sun::is_dense_matrix(D.get()));
    sun::LinearSolverPtr ls = sun::make_dense_lu(n, ctx.get());
    NONHOLO_CHECK_EQ(SUNLinSolSetup(ls.get(), D.get()), SUNLS_ILL_INPUT);
  }

  // CVODE on a stiff linear system: the same steps, Jacobians, setups and bits with either
  // solver, and the exact solution to the tolerance
  {
    const int n = 6;
    Linear L;
    L.V = with_condition(n, 10.0, rng);
    L.lambda.resize(n);
    for (int i = 0; i < n; ++i) L.lambda[i] = -std::pow(10.0, 4.0 * i / (n - 1));
    L.M = L.V * L.lambda.asDiagonal() * L.V.inverse();
    VectorXd y0 = VectorXd::Ones(n);
    const double tf = 2.0;
    const RunResult theirs = run_linear(L, y0, tf, false), ours = run_linear(L, y0, tf, true);
    NONHOLO_CHECK_EQ(theirs.flag, CV_SUCCESS);
    NONHOLO_CHECK_EQ(ours.flag, CV_SUCCESS);
    NONHOLO_CHECK_EQ(ours.steps, theirs.steps);
    NONHOLO_CHECK_EQ(ours.jacobians, theirs.jacobians);
    NONHOLO_CHECK_EQ(ours.setups, theirs.setups);
    NONHOLO_CHECK(bitwise_equal(ours.y, theirs.y));
    const VectorXd c = L.V.inverse() * y0;
    const VectorXd exact = L.V * (c.array() * (L.lambda.array() * tf).exp()).matrix();
    NONHOLO_CHECK((ours.y - exact).lpNorm<Eigen::Infinity>() < 1e-6);
    NONHOLO_CHECK(ours.steps > 20);

    // every iteration matrix singular: both solvers report a recoverable failure at each
    // setup, and CVODE gives up with a convergence failure (no crash, no unrecoverable flag)
    L.singular = true;
    const RunResult theirs_s = run_linear(L, y0, tf, false), ours_s = run_linear(L, y0, tf, true);
    NONHOLO_CHECK_EQ(theirs_s.flag, CV_CONV_FAILURE);
    NONHOLO_CHECK_EQ(ours_s.flag, CV_CONV_FAILURE);
    NONHOLO_CHECK_EQ(ours_s.steps, theirs_s.steps);
  }

  if (nonholo::testing::failures == 0) std::cout << "test_dense_lu: all checks passed" << std::endl;
  return nonholo::testing::failures;
}
