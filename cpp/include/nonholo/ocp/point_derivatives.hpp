// Exact first and second derivatives of the functions of one collocation point, by automatic
// differentiation on the expression graph (forward mode for the Jacobian, reverse then forward
// mode for the Hessian of the weighted sum): what the NLP evaluates at every IPOPT iteration.
//
// Given a graph of outputs F_0..F_{m-1} (the dynamics, the running cost, the path constraints and
// the algebraic equations) of the point's variables z (its inputs):
//   node:    inputs z; outputs [F, the nonzeros of J = dF/dz on (jac_rows, jac_cols)];
//   hessian: inputs (z, mu); outputs the lower triangle (row >= col) of sum_o mu_o d^2 F_o / dz^2
//            on (hess_rows, hess_cols).
// Entries the builder folds to the constant 0 (an output that does not depend on a variable) are
// left out of the sparsity. Differentiating the lowered graph, not the SymPy expressions, keeps the
// derivatives the size of the graph: SymPy's diff of the Whipple bicycle's equations of motion
// took minutes where this takes well under a second.
#pragma once

#include <vector>

#include "nonholo/tape/graph.hpp"

namespace nonholo {

struct PointDerivatives {
  ExprGraph node;
  std::vector<int> jac_rows, jac_cols;
  ExprGraph hessian;
  std::vector<int> hess_rows, hess_cols;
};

PointDerivatives point_derivatives(const ExprGraph& g);

}  // namespace nonholo
