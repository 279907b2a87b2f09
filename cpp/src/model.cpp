#include "nonholo/model.hpp"

#include <algorithm>

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

}  // namespace nonholo
