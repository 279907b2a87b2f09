// nonholo's own dense SUNMatrix and direct SUNLinearSolver behind CVODE's CVLS interface.
//
// CVODE's Newton iteration solves (I - gamma J) x = b. With SUNDIALS' dense matrix and solver a
// linear setup is: zero A, J into A, copy A to a saved J, A = I - gamma A, LU of A; each through a
// function pointer into the library, whose Debian build (6.4.1) is compiled without optimization:
// on the friction sleigh (6 states) these took ~1 us of a ~4.5 us step (perf). Here the integrator
// installs its own linear-system function (CVodeSetLinSysFn): the Jacobian goes straight into
// storage it keeps, A = I - gamma J is formed in one pass, and the LU with partial pivoting runs
// in place on A. CVODE still decides when the Jacobian is refreshed (jok / jcur) and when a setup
// runs; the jacobian policy (jacobian_policy.hpp) reads the same counters.
//
// The arithmetic is LAPACK's unblocked getrf/getrs (column-major, the row of the largest |a_ik|
// as pivot, the first such on ties, the multipliers scaled by 1 / a_kk) in the order SUNDIALS'
// dense solver uses, so factors and solutions equal SUNLinSol_Dense's bit for bit (with
// -ffp-contract=off, as the core is built) and runs take the same steps. A zero pivot is reported
// as SUNDIALS does: the setup returns SUNLS_LUFACT_FAIL (recoverable: CVODE retries with a
// smaller step) and lastflag is the 1-based column of the zero pivot.
//
// Why not linalg.hpp's Lu: a SUNLinearSolver must work in place on SUNDIALS' column-major matrix
// and, for runs to take the steps they took with SUNDIALS' own solver, repeat its arithmetic and
// its failure codes exactly; Lu is by rows, templated on the scalar and refuses small pivots.
// Why not Eigen's PartialPivLU (which linalg.hpp's Lu<double> calls): besides that exactness,
// lu_factor skips the column updates of a zero entry of the pivot row, as getrf (dger) does, and
// the Newton matrices of the workloads are mostly zeros: benchmarks/linear_algebra_cost.py
// --kernels (benchmarks/README.md,
// "Hand-written factorizations against Eigen's") measures it well over 1.2x faster on the sleigh,
// the small chains, the bicycle and the platoon, and a tie only on the dense S of the chain N = 32.
#pragma once

#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>

#include "nonholo/sundials/handles.hpp"

namespace nonholo::sun {

// A dense n x n matrix (SUNMATRIX_CUSTOM), column-major, content an Eigen matrix.
MatrixPtr make_dense_matrix(int n, SUNContext ctx);
// Its entries (column-major, n x n) and its size; the matrix must come from make_dense_matrix.
double* dense_matrix_data(SUNMatrix A);
int dense_matrix_size(SUNMatrix A);
// True for a matrix made by make_dense_matrix.
bool is_dense_matrix(SUNMatrix A);

// A direct solver (SUNLINEARSOLVER_DIRECT) for matrices of make_dense_matrix: its setup factors A
// in place (the LU overwrites A), its solve uses those factors.
LinearSolverPtr make_dense_lu(int n, SUNContext ctx);

// The kernels, column-major n x n.
// In-place LU with partial pivoting, P A = L U (unit L below the diagonal, U on and above it);
// pivots[k] is the row exchanged with row k at step k. Returns 0, or k + 1 for a zero pivot in
// column k (the factorization stops there).
int lu_factor(double* a, int n, int* pivots);
// Solves with the factors of lu_factor: b is overwritten with the solution.
void lu_solve(const double* lu, int n, const int* pivots, double* b);
// A = c J + I (as SUNMatScaleAddI(c, .) on a copy of J: the products first, then 1 on the diagonal).
void scale_add_identity(double c, const double* J, int n, double* A);

}  // namespace nonholo::sun
