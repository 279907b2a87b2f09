// nonholo's sparse SUNMatrix and direct SUNLinearSolver behind CVODE's CVLS interface, for the
// sparse backend (models/sparse_backend.hpp): the Newton matrix I - gamma J in compressed columns with the
// pattern of the model's Jacobian structure (its diagonal included), factored by Eigen's
// supernodal sparse LU with a column approximate-minimum-degree ordering, analysed once per
// solver (the pattern never changes) and refactored at every linear setup CVODE asks for. As
// with the dense solver (dense_lu.hpp), the integrator's linear-system function writes J and
// I - gamma J straight into the matrix; a failed factorization is SUNLS_LUFACT_FAIL
// (recoverable: CVODE retries with a smaller step). SUNDIALS' own sparse solver (KLU) would add a
// SuiteSparse dependency to the wheel for what Eigen, already a dependency, does.
#pragma once

#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>

#include "nonholo/sparse_structure.hpp"
#include "nonholo/sundials/handles.hpp"

namespace nonholo::sun {

// A matrix with the structure's pattern (SUNMATRIX_CUSTOM), values zero.
MatrixPtr make_sparse_matrix(const JacobianStructure& structure, SUNContext ctx);
bool is_sparse_matrix(SUNMatrix A);
// A = c J + I, J's values in the structure's order (the matrix's storage order).
void sparse_scale_add_identity(double c, const double* J, SUNMatrix A);

// A direct solver for matrices of make_sparse_matrix.
LinearSolverPtr make_sparse_lu(SUNContext ctx);

}  // namespace nonholo::sun
