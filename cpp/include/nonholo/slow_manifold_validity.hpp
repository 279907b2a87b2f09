// Where a reduced model is valid (python/nonholo/models/validity.py): what the spectral gap delta
// of the friction model needs (its Jacobian on the slow manifold) and the size r of the first term
// the truncation drops, at the sampled states of a run, in one pass in C++ (one workspace for all
// samples, one evaluation of the series per sample, no Python per sample). The eigenvalues are
// left to LAPACK (numpy), which balances the matrix first: Eigen's unbalanced QR put the zero
// eigenvalues of a nilpotent slow flow at 1e-8 of the fast ones, LAPACK's at round-off.
#pragma once

#include <functional>
#include <vector>

#include "nonholo/model.hpp"
#include "nonholo/slow_manifold_graph.hpp"

namespace nonholo {

// At time-major samples (t_i, q_i, u_i), i < n_t (QU: n_t x 2n, row i = [q_i, u_i]), of a reduced
// model of order K = `order` with slip eps, and with the coefficients h^(1..K+1) from `next` (a
// CompiledSlip of order K + 1 of the system) or by Taylor mode when null:
//   V_i     = u_i + sum_{k<=K} eps^k h^(k)(t_i, q_i, u_i), the model's velocity (n_t x n);
//   J_i     = the friction model's Jacobian at (t_i, q_i, V_i), 2n x 2n, column-major
//             (Model::jacobian's layout);
//   r_i     = max |eps^(K+1) h^(K+1)(t_i, q_i, u_i)| / max_j max(|u_j|, |V_j|) (0 where that
//             scale is 0);
//   bound_i = an upper bound of the spectral gap delta of J_i (slow_manifold_gap_bound.hpp: no
//             eigenvalues; +inf where it cannot separate the fast block), when `bound` is not null.
// `friction` is the system's friction model (parameters: the system's, then eps); p holds the
// system's parameters.
void reduced_validity(const Model& friction, const MechanicalSystem& sys, const CompiledSlip* next, int order,
                      double eps, int n_t, const double* t, const double* QU, const double* p, double* V,
                      double* J, double* r, double* bound = nullptr);

// The check of a run (validity.estimate): the samples above, evaluated as needed. With margin 0
// every sample is evaluated (one batch); with a margin > 1 the first and the last are, then the
// bisection of validity.py: the samples between two evaluated ones i < j are skipped when
//     max(delta_i, delta_j) <= threshold / margin,  max(R_i, R_j) <= next_term_threshold / margin * scale,
//     max_{i<l<j} |u_l|_inf <= speed_growth * max(|u_i|_inf, |u_j|_inf),
// else the middle one is evaluated and both halves are judged again (breadth first, one batch per
// level). R_i = eps^(K+1) |h^(K+1)_i|_inf, scale = the largest |u|_inf of all samples and |V|_inf
// of the evaluated ones so far. delta_i is the gap's bound where it is <= threshold (bounded_i),
// else the ratio of the eigenvalues, from `gap` (every evaluated sample with `exact`).
struct RunCheckOptions {
  double threshold = 0.1, next_term_threshold = 0.1, margin = 0.0, speed_growth = 2.0;
  bool exact = false;
};
struct RunCheck {
  std::vector<int> evaluated;  // the evaluated samples, increasing
  std::vector<double> delta, r;  // at those: r = R / scale (the final scale)
  std::vector<unsigned char> bounded;
};
// |lambda_(k+1)| / |lambda_k| (moduli decreasing) of `count` column-major 2n x 2n matrices stored one
// after the other at J, into delta (the Python binding calls LAPACK through numpy, which balances
// the matrix first: see above).
using GapSolver = std::function<void(int count, const double* J, double* delta)>;
RunCheck check_reduced_run(const Model& friction, const MechanicalSystem& sys, const CompiledSlip* next, int order,
                           double eps, int n_t, const double* t, const double* QU, const double* p,
                           const RunCheckOptions& options, const GapSolver& gap);

}  // namespace nonholo
