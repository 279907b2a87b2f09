// CVODE's Newton systems for a second-order model, solved in half the dimension.
//
// For y = [q, v] with q' = v and v' = f(q, v) (n coordinates), the Jacobian is
// J = [0, I; F_q, F_v] and CVODE's Newton matrix is
//   I - gamma J = [I, -gamma I; -gamma F_q, I - gamma F_v].
// Eliminating x_q = b_q + gamma x_v from (I - gamma J) x = b leaves
//   S x_v = b_v + gamma F_q b_q,   S = I - gamma F_v - gamma^2 F_q   (n x n),
// the reduction RADAU5 makes for second-order systems (Hairer & Wanner, Solving Ordinary
// Differential Equations II, sec. IV.8). S is factored by LU with partial pivoting (dense_lu.hpp's
// kernels): an eighth of the flops and a quarter of the storage of the 2n x 2n factorization,
// whose cost dominated a stiff run from ~60 coordinates on (the friction chain N = 128: 20
// setups of 11.7 Mflop each). The solution equals the full LU's to rounding, not bit for bit.
#pragma once

#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>

#include "nonholo/sundials/handles.hpp"

namespace nonholo::sun {

// The Newton matrix I - gamma J of a second-order model with n coordinates (2n states), stored
// as S and gamma F_q (SUNMATRIX_CUSTOM).
MatrixPtr make_second_order_matrix(int n, SUNContext ctx);
// True for a matrix made by make_second_order_matrix.
bool is_second_order_matrix(SUNMatrix A);
// A = I - gamma J from J (2n x 2n, column-major) whose first n rows are [0, I] (not read).
void second_order_form(double gamma, const double* J, SUNMatrix A);
// A direct solver for matrices of make_second_order_matrix: its setup factors S in place, its
// solve returns x = (I - gamma J)^-1 b. A zero pivot fails the setup as dense_lu.hpp's does
// (SUNLS_LUFACT_FAIL, lastflag the 1-based column), so CVODE retries with a smaller step.
LinearSolverPtr make_second_order_lu(int n, SUNContext ctx);

}  // namespace nonholo::sun
