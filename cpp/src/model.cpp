#include "nonholo/model.hpp"

#include <algorithm>

#include "nonholo/models/friction.hpp"
#include "nonholo/models/nonholonomic.hpp"

namespace nonholo {

void Model::constraint_residual(double, const double*, const double*, Workspace&, double* residual,
                                double* scale) const {
  *residual = 0.0;
  *scale = 1.0;
}

void Model::project(double, const double*, const double*, double* corr, double*, const double*, Workspace&) const {
  std::fill(corr, corr + n_states(), 0.0);
}

void Model::check_state(double, const double*, const double*, Workspace&) const {}

void Model::project_sensitivities(double, const double*, const double*, int, double* const*, const int*,
                                  const double*, Workspace&) const {}
namespace {

// Cost units of the estimates below: one interpreted tape instruction. A dense floating-point
// operation in the models' linear algebra costs about a quarter of that, and a dual number with
// kJacobianChunk directions about kJacobianChunk + 1 doubles (measured on the knife-edge chain).
constexpr double kFlop = 0.25;

double rhs_cost(const MechanicalSystem& s) {
  const double n = s.n(), k = s.k();
  return s.dynamics_tape().n_instructions() + kFlop * (n * n * n / 3 + 2 * n * n * k + k * k * k / 3);
}

}  // namespace

// Dual numbers through the whole vector field, once per chunk of kJacobianChunk directions.
double Model::dual_jacobian_cost() const {
  const int chunks = (n_states() + kJacobianChunk - 1) / kJacobianChunk;
  return chunks * (kJacobianChunk + 1.0);
}

// One sweep of the Jacobian tape and 2n columns of dense solves and products with dG, dA.
double NonholonomicModel::implicit_jacobian_cost() const {
  const MechanicalSystem& s = system();
  const double n = s.n(), k = s.k();
  const double dense = rhs_cost(s) - s.dynamics_tape().n_instructions() + 2 * n * (2 * n * n + 4 * n * k);
  return (s.jacobian_tape().n_instructions() + kFlop * dense) / rhs_cost(s);
}

double FrictionModel::implicit_jacobian_cost() const {
  const MechanicalSystem& s = system();
  const double n = s.n(), k = s.k();
  const double dense = n * n * n / 3 + 2 * n * (2 * n * n + 4 * n * k + 2 * k * k);
  return (s.jacobian_tape().n_instructions() + kFlop * dense) / rhs_cost(s);
}


}  // namespace nonholo
