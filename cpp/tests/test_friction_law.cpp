// The viscous friction law (models/friction_law.hpp) at random points, k = 1..6: the force is
// -(1/eps) mu s; with the coefficients stored dense or by sparse rows it is the same to rounding
// (1e-14 relative: Eigen's product and the row loop sum in different orders); in dual numbers
// its value is the double one to rounding and its derivative along a direction of s is slope()
// times that direction; derivative() equals central differences of force() along s and
// along a change of mu (each to 1e-7 relative); check() refuses a non-positive or infinite eps
// and a non-symmetric or indefinite mu (ModelError: the model has no realization there); the
// reduced models' law check accepts the viscous law only.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "check.hpp"
#include "nonholo/models/friction_law.hpp"
#include "nonholo/scalar/dual.hpp"

using namespace nonholo;

namespace {

std::mt19937 rng(20261202);

MatX<double> random_matrix(int rows, int cols) {
  std::normal_distribution<double> normal;
  MatX<double> X(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) X(i, j) = normal(rng);
  return X;
}

// Symmetric positive definite, stored row-major as the tapes give mu.
RowMatX<double> random_mu(int k) {
  const MatX<double> X = random_matrix(k, k);
  MatX<double> mu = X * X.transpose() / k + 0.5 * MatX<double>::Identity(k, k);
  return RowMatX<double>(0.5 * (mu + mu.transpose()));
}

VecX<double> force_of(const RowMatX<double>& mu, double eps, const VecX<double>& s) {
  VecX<double> z(s.size());
  ViscousLaw::force(LawInputs{RowMatMap<double>(mu.data(), mu.rows(), mu.cols()), eps}, s, z);
  return z;
}

double relative(const MatX<double>& a, const MatX<double>& b) { return (a - b).norm() / (1.0 + b.norm()); }

template <class Exception, class F>
bool throws(F&& f) {
  try {
    f();
  } catch (const Exception&) {
    return true;
  }
  return false;
}

void check_law(int k) {
  const double eps = std::exp(std::uniform_real_distribution<double>(-9.0, 0.0)(rng));
  const RowMatX<double> mu = random_mu(k);
  const RowMatMap<double> mu_map(mu.data(), k, k);
  const VecX<double> s = random_matrix(k, 1);

  // z = -(1/eps) mu s
  const VecX<double> z = force_of(mu, eps, s);
  NONHOLO_CHECK(relative(z, -(mu * s) / eps) < 1e-14);

  // sparse rows (every entry stored; zeros where a random pattern leaves them out): bit for bit
  RowMatX<double> masked = mu;
  std::vector<double> values;
  std::vector<int> outer{0}, inner;
  for (int a = 0; a < k; ++a) {
    for (int c = 0; c < k; ++c) {
      if (a != c && (a + 2 * c) % 3 == 0) {
        masked(a, c) = 0.0;
        continue;
      }
      values.push_back(masked(a, c));
      inner.push_back(c);
    }
    outer.push_back(static_cast<int>(inner.size()));
  }
  std::vector<double> s_vec(s.data(), s.data() + k), z_sparse(k);
  ViscousLaw::force(LawInputs{SparseRows<double>{values.data(), outer.data(), inner.data()}, eps}, s_vec, z_sparse);
  const VecX<double> z_masked = force_of(masked, eps, s);
  NONHOLO_CHECK(relative(Eigen::Map<VecX<double>>(z_sparse.data(), k), z_masked) < 1e-14);

  // dual numbers: the value is the double force, the derivative is the slope along the direction
  using D = Dual<double, 1>;
  const VecX<double> dir = random_matrix(k, 1);
  VecX<D> s_dual(k), z_dual(k);
  for (int a = 0; a < k; ++a) {
    s_dual[a] = D(s[a]);
    s_dual[a].d[0] = dir[a];
  }
  const RowMatX<D> mu_dual = mu.cast<D>();
  ViscousLaw::force(LawInputs{RowMatMap<D>(mu_dual.data(), k, k), eps}, s_dual, z_dual);
  MatX<double> slope;
  ViscousLaw::slope(LawInputs{mu_map, eps}, slope);
  NONHOLO_CHECK(relative(slope, -MatX<double>(mu) / eps) < 1e-14);
  VecX<double> value(k), tangent(k);
  for (int a = 0; a < k; ++a) {
    value[a] = z_dual[a].v;
    tangent[a] = z_dual[a].d[0];
  }
  NONHOLO_CHECK(relative(value, z) < 1e-14);
  NONHOLO_CHECK(relative(tangent, slope * dir) < 1e-13);

  // derivative() on two columns: one along s (ds = dir, no change of mu), one along a change
  // dmu of the coefficients (ds = 0), against central differences of force()
  MatX<double> ds = MatX<double>::Zero(k, 2);
  ds.col(0) = dir;
  const RowMatX<double> dmu = random_mu(k);
  MatX<double> dz;
  ViscousLaw::derivative(
      LawInputs{mu_map, eps}, s, ds,
      [&](auto&& f) {
        for (int a = 0; a < k; ++a)
          for (int c = 0; c < k; ++c) f(1, a, c, dmu(a, c));
      },
      dz);
  const double h = 1e-6;
  const VecX<double> along_s = (force_of(mu, eps, s + h * dir) - force_of(mu, eps, s - h * dir)) / (2 * h);
  const RowMatX<double> mu_plus = mu + h * dmu, mu_minus = mu - h * dmu;
  const VecX<double> along_mu = (force_of(mu_plus, eps, s) - force_of(mu_minus, eps, s)) / (2 * h);
  NONHOLO_CHECK(relative(dz.col(0), along_s) < 1e-7);
  NONHOLO_CHECK(relative(dz.col(1), along_mu) < 1e-7);

  // the law's checks
  const MatX<double> mu_dense = mu;
  ViscousLaw::check(LawInputs{mu_dense, eps}, "here");  // usable: no throw
  for (double bad : {0.0, -eps, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()})
    NONHOLO_CHECK(throws<ModelError>([&] { ViscousLaw::check(LawInputs{mu_dense, bad}, "here"); }));
  if (k > 1) {
    MatX<double> skew = mu_dense;
    skew(0, 1) += 0.1;
    NONHOLO_CHECK(throws<ModelError>([&] { ViscousLaw::check(LawInputs{skew, eps}, "here"); }));
  }
  const MatX<double> indefinite = -mu_dense;
  NONHOLO_CHECK(throws<ModelError>([&] { ViscousLaw::check(LawInputs{indefinite, eps}, "here"); }));
}

}  // namespace

int main() {
  for (int k = 1; k <= 6; ++k)
    for (int trial = 0; trial < 4; ++trial) check_law(k);
  return nonholo::testing::failures;
}
