// Position projection for coordinates that live on a unit sphere (a unit quaternion's four
// components): after each step the integrator scales them back to |q_g| = 1. The rigid-body
// systems built by nonholo.bodies are invariant under q_g -> s q_g, q_g' -> s q_g' (their
// Lagrangian depends on q_g / |q_g| only), so the scaling does not change the motion; it keeps
// the long-run state on S^3 instead of letting |q_g| drift with the integration error.
#pragma once

#include <cmath>
#include <vector>

namespace nonholo {

struct UnitNormGroup {
  std::vector<int> position;  // indices in y of the components q_g
  std::vector<int> velocity;  // indices in y of q_g' (empty: quasi-velocities, left alone)
};

// y + corr is the state after the velocity projection; on return y + corr has |q_g| = 1,
// q_g' scaled by the same factor 1/|q_g| with its radial part removed (q_g . q_g' = 0), and err
// (when not null) has its radial position part removed (CVODE projects the error estimate
// onto the tangent space of the constraint set).
inline void project_unit_norm(const std::vector<UnitNormGroup>& groups, const double* y, double* corr, double* err) {
  for (const auto& g : groups) {
    double s2 = 0.0;
    for (int i : g.position) s2 += (y[i] + corr[i]) * (y[i] + corr[i]);
    const double s = std::sqrt(s2);
    if (!(s > 0.0) || !std::isfinite(s)) continue;  // left to the error test
    double radial = 0.0;  // u . q_g' with u = q_g / |q_g|
    for (std::size_t j = 0; j < g.velocity.size(); ++j)
      radial += (y[g.position[j]] + corr[g.position[j]]) / s * (y[g.velocity[j]] + corr[g.velocity[j]]);
    for (std::size_t j = 0; j < g.velocity.size(); ++j) {
      const int p = g.position[j], v = g.velocity[j];
      const double u = (y[p] + corr[p]) / s;
      corr[v] = (y[v] + corr[v] - radial * u) / s - y[v];
    }
    double err_radial = 0.0;
    for (int i : g.position) {
      const double u = (y[i] + corr[i]) / s;
      if (err) err_radial += u * err[i];
      corr[i] = u - y[i];
    }
    if (err)
      for (int i : g.position) err[i] -= err_radial * (y[i] + corr[i]);
  }
}

}  // namespace nonholo
