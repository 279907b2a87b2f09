// The geometric objects of a system at one point (t, q, v), for inspection and tests:
// metric, Christoffel symbols, projectors P and P_perp onto D and its G-orthogonal complement,
// the friction operator FR# = G^-1 A^T mu A and its pseudo-inverse Qmat on D_perp,
// Lagrange-d'Alembert multipliers and accelerations, and the projection of velocities onto D.
// Formulas: notes/003_gzenda_chhabra.md sections 2.2-2.4 and 3.5 (closed forms).
#pragma once

#include <vector>

#include "nonholo/mechanics.hpp"

namespace nonholo {

class PointGeometry {
 public:
  // v may be null (zero velocity); p has system.n_params() entries.
  PointGeometry(const MechanicalSystem& system, double t, const double* q, const double* v, const double* p);

  MatX<double> metric() const { return w_.geo.G(); }
  // Gamma^i_jk, flattened as [i][j][k].
  std::vector<double> christoffel() const;
  MatX<double> constraint_matrix() const { return w_.geo.A(); }
  VecX<double> affine() const { return w_.geo.b(); }
  MatX<double> friction_coefficients() const { return w_.geo.mu(); }
  VecX<double> force() const { return w_.geo.F(); }
  double potential() const { return w_.geo.V(); }
  double kinetic_energy() const { return 0.5 * v_.dot(w_.geo.G() * v_); }

  MatX<double> p_perp() const;        // G^-1 A^T M^-1 A
  MatX<double> p() const;             // Id - P_perp
  MatX<double> friction_operator() const;  // FR# = G^-1 A^T mu A
  MatX<double> qmat() const;          // G^-1 A^T M^-1 mu^-1 M^-1 A
  VecX<double> multipliers();         // lambda of G v' + c + dV = F + A^T lambda
  VecX<double> nonholonomic_acceleration();
  VecX<double> project() const;       // v - G^-1 A^T M^-1 (A v - b): onto {A v = b}

 private:
  const MechanicalSystem& system_;
  VecX<double> v_;
  mutable MechanicsWork<double> w_;
  mutable bool full_ = false;  // w_.geo from the full tape (else the dynamics tape: no dG/dq)
};

}  // namespace nonholo
