#include "nonholo/slow_manifold_validity.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "nonholo/errors.hpp"
#include "nonholo/mechanics.hpp"
#include "nonholo/slow_manifold_gap_bound.hpp"
#include "nonholo/slow_manifold.hpp"

namespace nonholo {

void reduced_validity(const Model& friction, const MechanicalSystem& sys, const CompiledSlip* next, int order,
                      double eps, int n_t, const double* t, const double* QU, const double* p, double* V,
                      double* J, double* r, double* bound) {
  const int n = sys.n(), np = sys.n_params();
  if (order < 0) throw InputError("order must be at least 0 (got " + std::to_string(order) + ")");
  if (next != nullptr && (next->order() != order + 1 || &next->system() != &sys))
    throw InputError("the compiled slow manifold must be of order " + std::to_string(order + 1) +
                     " of this system");
  if (friction.n_states() != 2 * n || friction.n_params() != np + 1)
    throw InputError("the friction model must be the system's (states [q, v], parameters then eps)");
  std::vector<double> pf(p, p + np);
  pf.push_back(eps);
  WorkspaceLease ws = friction.borrow_workspace();
  SlipWork<double> slip;
  VecX<double> y(2 * n);
  MechanicsWork<double> geo;  // G and A at the sample, for the gap's bound
  double scale = 0.0;
  for (int i = 0; i < n_t; ++i) {
    const double* q = QU + static_cast<long>(i) * 2 * n;
    const double* u = q + n;
    // h^(1..K+1) at (t_i, q_i, u_i): one evaluation gives the model's velocity and the next term
    const double* h = nullptr;
    if (next != nullptr) {
      next->evaluate(t[i], q, u, p, slip.in, slip.out, slip.work);
      h = slip.out.data();
    } else {
      slip_coefficients(sys, t[i], q, u, p, order + 1, slip.slow, slip.coeffs);
      h = slip.coeffs.data();  // column-major n x (K + 1): h^(k) at h + (k - 1) n, as the tape's
    }
    Eigen::Map<VecX<double>> v(V + static_cast<long>(i) * n, n);
    v = Eigen::Map<const VecX<double>>(u, n);
    double e = 1.0;
    for (int j = 0; j < order; ++j) {
      e *= eps;
      v += e * Eigen::Map<const VecX<double>>(h + static_cast<long>(j) * n, n);
    }
    r[i] = e * eps * Eigen::Map<const VecX<double>>(h + static_cast<long>(order) * n, n).lpNorm<Eigen::Infinity>();
    scale = std::max({scale, Eigen::Map<const VecX<double>>(u, n).lpNorm<Eigen::Infinity>(),
                      v.lpNorm<Eigen::Infinity>()});
    y.head(n) = Eigen::Map<const VecX<double>>(q, n);
    y.tail(n) = v;
    double* Ji = J + static_cast<long>(i) * 4 * n * n;
    friction.jacobian(t[i], y.data(), pf.data(), Ji, *ws);
    if (bound != nullptr) {
      sys.evaluate_dynamics(t[i], q, v.data(), p, geo.geo);
      bound[i] = spectral_gap_bound(Eigen::Map<const MatX<double>>(Ji, 2 * n, 2 * n), geo.geo.G(), geo.geo.A());
    }
  }
  for (int i = 0; i < n_t; ++i) r[i] = scale > 0.0 ? r[i] / scale : 0.0;
}

}  // namespace nonholo
