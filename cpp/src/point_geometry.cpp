#include "nonholo/point_geometry.hpp"

#include "nonholo/models/nonholonomic.hpp"

namespace nonholo {

PointGeometry::PointGeometry(const MechanicalSystem& system, double t, const double* q, const double* v,
                             const double* p)
    : system_(system), v_(VecX<double>::Zero(system.n())) {
  if (v != nullptr) v_ = Eigen::Map<const VecX<double>>(v, system.n());
  // the full tape (with dG/dq, n^3 entries) only where F needs it; christoffel() evaluates it
  full_ = system_.applied_force_given();
  if (full_) system_.evaluate(t, q, v_.data(), p, w_.geo);
  else system_.evaluate_dynamics(t, q, v_.data(), p, w_.geo);
  factor_metric(w_);
  factor_constraints(w_);
}

std::vector<double> PointGeometry::christoffel() const {
  // Gamma^i_jk = 1/2 G^il (d_k G_jl + d_j G_kl - d_l G_jk)
  const int n = system_.n();
  if (!full_) {  // the same point, with dG/dq
    const Geometry<double> at = w_.geo;
    system_.evaluate(value(at.in[2 * n]), at.in.data(), at.in.data() + n, at.in.data() + 2 * n + 1, w_.geo);
    full_ = true;
  }
  std::vector<double> gamma(n * n * n);
  for (int j = 0; j < n; ++j) {
    for (int k = 0; k < n; ++k) {
      VecX<double> s(n);
      for (int l = 0; l < n; ++l)
        s(l) = 0.5 * (w_.geo.dG(k)(j, l) + w_.geo.dG(j)(k, l) - w_.geo.dG(l)(j, k));
      w_.chol_G.solve_in_place(s);
      for (int i = 0; i < n; ++i) gamma[(i * n + j) * n + k] = s(i);
    }
  }
  return gamma;
}

MatX<double> PointGeometry::p_perp() const {
  MatX<double> MinvA = w_.geo.A();
  w_.chol_M.solve_in_place(MinvA);
  return w_.GinvAT * MinvA;
}

MatX<double> PointGeometry::p() const {
  return MatX<double>::Identity(system_.n(), system_.n()) - p_perp();
}

MatX<double> PointGeometry::friction_operator() const {
  return w_.GinvAT * w_.geo.mu() * w_.geo.A();
}

MatX<double> PointGeometry::qmat() const {
  MatX<double> X = w_.geo.A();
  w_.chol_M.solve_in_place(X);  // M^-1 A
  Ldlt<double> chol_mu;
  if (system_.k() > 0 && !chol_mu.compute(w_.geo.mu()))
    throw ModelError("the friction coefficients mu are not positive definite at " + describe_point(w_.geo));
  chol_mu.solve_in_place(X);    // mu^-1 M^-1 A
  w_.chol_M.solve_in_place(X);  // M^-1 mu^-1 M^-1 A
  return w_.GinvAT * X;
}

VecX<double> PointGeometry::nonholonomic_acceleration() {
  VecX<double> vdot(system_.n());
  NonholonomicModel::accelerations(w_, vdot);
  return vdot;
}

VecX<double> PointGeometry::multipliers() {
  nonholonomic_acceleration();
  return w_.lambda;
}

VecX<double> PointGeometry::project() const {
  VecX<double> r = w_.geo.A() * v_ - w_.geo.b();
  w_.chol_M.solve_in_place(r);
  return v_ - w_.GinvAT * r;
}

}  // namespace nonholo
