// The sparse linear-algebra backend: a model kind's equations (FrictionEquations,
// NonholonomicEquations: the kind's one statement, models/<kind>.hpp) solved over the sparse tape
// (only the nonzeros of G, A, mu; algebra.hpp's SparseAlgebra) by a sparse L D L^T of fixed
// pattern (sparse_symmetric.hpp) of K = G, or of K = [G, A^T; A, 0] for a saddle-point kind:
//   q' = v,   K x = rhs(q, v),   v' the first n entries of x.
// Derivatives (the Jacobian, sensitivities) by implicit differentiation of the solve: along a
// direction d, K dx = d(rhs) - dK x, with d(rhs) and dK from the sparse tape and the kind's
// right-hand side in dual numbers, K's factors reused; the Jacobian's columns in groups that
// share no row (sparse_structure.hpp), a few directions for all 2n columns. This file knows no
// model kind's equations: a kind enters only through its Equations type.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "nonholo/model.hpp"
#include "nonholo/sparse_symmetric.hpp"

namespace nonholo {

// The cost estimates of the sparse backend (model.cpp, with the other fitted constants).
double sparse_rhs_cost_ns(const MechanicalSystem& system, const SymmetricPattern& pattern);
double sparse_jacobian_cost(const MechanicalSystem& system, const SymmetricPattern& pattern,
                            const JacobianStructure& structure);

// Its parts: the constraint set (a constrained kind of a system with constraints), the sparse
// Jacobian and the cost estimate; no tape part (the sparse tape has no C translation) and no
// Jacobian paths besides jacobian(). Compiled for the kinds that have a sparse path
// (sparse_backend.cpp: make_sparse_model).
template <class Equations>
class SparseBackend : public Model, public ConstraintSet, public SparseJacobian, public CostEstimate {
 public:
  SparseBackend(std::shared_ptr<const MechanicalSystem> system, Equations equations = Equations());

  std::string kind() const override { return std::string(Equations::kName); }
  int n_states() const override { return 2 * system().n(); }
  int n_extra_params() const override { return Equations::kExtraParams; }
  bool stiff() const override { return Equations::kStiff; }
  ModelParts parts() const override {
    ModelParts parts;
    if (has_constraints()) parts.constraints = this;
    parts.sparse_jacobian = this;
    parts.cost = this;
    return parts;
  }

  std::unique_ptr<Workspace> workspace() const override;
  void rhs(double t, const double* y, const double* p, double* ydot, Workspace& ws) const override;
  void jacobian(double t, const double* y, const double* p, double* J, Workspace& ws) const override;
  const JacobianStructure& jacobian_structure() const override { return structure_; }
  void sparse_jacobian(double t, const double* y, const double* p, double* values, Workspace& ws) const override;
  void directional_derivatives(double t, const double* y, const double* p, int n_dir, const double* const* s,
                               const int* index, double* const* out, Workspace& ws) const override;

  void constraint_residual(double t, const double* y, const double* p, Workspace& ws, double* residual,
                           double* scale) const override;
  void project(double t, const double* y, const double* p, double* corr, double* err, const double* weights,
               Workspace& ws) const override;
  void project_sensitivities(double t, const double* y, const double* p, int n_dir, double* const* s,
                             const int* index, const double* weights, Workspace& ws) const override;
  void check_state(double t, const double* y, const double* p, Workspace& ws) const override;

  double rhs_cost_ns() const override { return sparse_rhs_cost_ns(system(), pattern_); }
  double jacobian_cost() const override { return sparse_jacobian_cost(system(), pattern_, structure_); }
  double dual_jacobian_cost() const override { return jacobian_cost(); }
  double implicit_jacobian_cost() const override { return std::numeric_limits<double>::quiet_NaN(); }

  const SymmetricPattern& pattern() const { return pattern_; }
  const Equations& equations() const { return equations_; }

 private:
  struct Work;
  // Evaluates the sparse tape and the kind's right-hand side in dual numbers along up to
  // kJacobianChunk directions (the state seeded by seed(c, i), parameter index[c] by 1), factors
  // K at the point and solves for the values; then out[c] = df/d(direction c) for c < m.
  template <class Seed>
  void directions(double t, const double* y, const double* p, int m, Seed&& seed, const int* index,
                  double* const* out, Work& w) const;
  // K factored at the point of w's values (throws ModelError naming the point when singular).
  void factor(double t, const double* q, Work& w) const;
  // The derivative of K x = rhs along direction c: d(rhs)_c - dK_c x, into w.b.
  void differentiated_rhs(int c, Work& w) const;
  // Solves [D, A^T; A, 0] [x; m] = [0; L] with D = G (factor) or diag(weights_v^2)
  // (factor_weighted) as last factored: x is the G- (or weighted) orthogonal correction.
  void solve_correction(const double* L, Work& w) const;
  void factor_weighted(double t, const double* y, const double* weights, const double* A, Work& w) const;

  bool has_constraints() const { return Equations::kConstrained && system().k() > 0; }

  Equations equations_;
  SymmetricPattern pattern_;
  JacobianStructure structure_;
};

}  // namespace nonholo
