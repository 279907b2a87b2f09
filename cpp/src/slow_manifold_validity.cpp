#include "nonholo/slow_manifold_validity.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "nonholo/errors.hpp"
#include "nonholo/mechanics.hpp"
#include "nonholo/slow_manifold_gap_bound.hpp"
#include "nonholo/slow_manifold.hpp"

namespace nonholo {

namespace {

// One sample at a time: V_i, J_i, the absolute dropped term eps^(K+1) |h^(K+1)|_inf and the gap's
// bound (reduced_validity's definitions), with one workspace for all samples.
class SampleEvaluator {
 public:
  SampleEvaluator(const Model& friction, const MechanicalSystem& sys, const CompiledSlip* next, int order, double eps,
                  const double* p)
      : friction_(friction), sys_(sys), next_(next), order_(order), eps_(eps), p_(p), ws_(friction.borrow_workspace()) {
    const int n = sys.n(), np = sys.n_params();
    if (order < 0) throw InputError("order must be at least 0 (got " + std::to_string(order) + ")");
    if (next != nullptr && (next->order() != order + 1 || &next->system() != &sys))
      throw InputError("the compiled slow manifold must be of order " + std::to_string(order + 1) +
                       " of this system");
    if (friction.n_states() != 2 * n || friction.n_params() != np + 1)
      throw InputError("the friction model must be the system's (states [q, v], parameters then eps)");
    pf_.assign(p, p + np);
    pf_.push_back(eps);
    y_.resize(2 * n);
  }

  // Returns eps^(K+1) |h^(K+1)|_inf at (t, q, u); V (n) and J (2n x 2n, column-major) written, and
  // *bound when bound is not null.
  double operator()(double t, const double* q, const double* u, double* V, double* J, double* bound) {
    const int n = sys_.n();
    const double* h = nullptr;  // h^(1..K+1) at (t, q, u): the model's velocity and the next term
    if (next_ != nullptr) {
      next_->evaluate(t, q, u, p_, slip_.in, slip_.out, slip_.work);
      h = slip_.out.data();
    } else {
      slip_coefficients(sys_, t, q, u, p_, order_ + 1, slip_.slow, slip_.coeffs);
      h = slip_.coeffs.data();  // column-major n x (K + 1): h^(k) at h + (k - 1) n, as the tape's
    }
    Eigen::Map<VecX<double>> v(V, n);
    v = Eigen::Map<const VecX<double>>(u, n);
    double e = 1.0;
    for (int j = 0; j < order_; ++j) {
      e *= eps_;
      v += e * Eigen::Map<const VecX<double>>(h + static_cast<long>(j) * n, n);
    }
    const double r = e * eps_ * Eigen::Map<const VecX<double>>(h + static_cast<long>(order_) * n, n).lpNorm<Eigen::Infinity>();
    y_.head(n) = Eigen::Map<const VecX<double>>(q, n);
    y_.tail(n) = v;
    friction_.jacobian(t, y_.data(), pf_.data(), J, *ws_);
    if (bound != nullptr) {
      sys_.evaluate_dynamics(t, q, v.data(), p_, geo_.geo);
      *bound = spectral_gap_bound(Eigen::Map<const MatX<double>>(J, 2 * n, 2 * n), geo_.geo.G(), geo_.geo.A());
    }
    return r;
  }

 private:
  const Model& friction_;
  const MechanicalSystem& sys_;
  const CompiledSlip* next_;
  int order_;
  double eps_;
  const double* p_;
  std::vector<double> pf_;
  WorkspaceLease ws_;
  SlipWork<double> slip_;
  VecX<double> y_;
  MechanicsWork<double> geo_;  // G and A at the sample, for the gap's bound
};

}  // namespace

void reduced_validity(const Model& friction, const MechanicalSystem& sys, const CompiledSlip* next, int order,
                      double eps, int n_t, const double* t, const double* QU, const double* p, double* V,
                      double* J, double* r, double* bound) {
  const int n = sys.n();
  SampleEvaluator evaluate(friction, sys, next, order, eps, p);
  double scale = 0.0;
  for (int i = 0; i < n_t; ++i) {
    const double* q = QU + static_cast<long>(i) * 2 * n;
    double* Vi = V + static_cast<long>(i) * n;
    r[i] = evaluate(t[i], q, q + n, Vi, J + static_cast<long>(i) * 4 * n * n, bound != nullptr ? bound + i : nullptr);
    scale = std::max({scale, Eigen::Map<const VecX<double>>(q + n, n).lpNorm<Eigen::Infinity>(),
                      Eigen::Map<const VecX<double>>(Vi, n).lpNorm<Eigen::Infinity>()});
  }
  for (int i = 0; i < n_t; ++i) r[i] = scale > 0.0 ? r[i] / scale : 0.0;
}

RunCheck check_reduced_run(const Model& friction, const MechanicalSystem& sys, const CompiledSlip* next, int order,
                           double eps, int n_t, const double* t, const double* QU, const double* p,
                           const RunCheckOptions& options, const GapSolver& gap) {
  if (options.margin != 0.0 && !(options.margin > 1.0))
    throw InputError("margin must be greater than 1 (or 0: every sample), got " + std::to_string(options.margin));
  const int n = sys.n();
  const long nn4 = 4L * n * n;
  SampleEvaluator evaluate(friction, sys, next, order, eps, p);
  std::vector<double> speed(n_t), delta(n_t, 0.0), r_abs(n_t, 0.0);
  std::vector<unsigned char> bounded(n_t, 0), done(n_t, 0);
  double scale = 0.0;
  for (int i = 0; i < n_t; ++i) {
    speed[i] = Eigen::Map<const VecX<double>>(QU + static_cast<long>(i) * 2 * n + n, n).lpNorm<Eigen::Infinity>();
    scale = std::max(scale, speed[i]);
  }
  // the first batch: the first and the last sample (with a margin), else all of them
  std::vector<int> todo;
  std::vector<std::pair<int, int>> intervals, split;
  if (options.margin == 0.0) {
    for (int i = 0; i < n_t; ++i) todo.push_back(i);
  } else if (n_t > 0) {
    todo.push_back(0);
    if (n_t > 1) {
      todo.push_back(n_t - 1);
      intervals.emplace_back(0, n_t - 1);
    }
  }
  VecX<double> V(n);
  MatX<double> J;        // the batch's Jacobians, column-major 2n x 2n each
  std::vector<int> eig;  // the batch's samples whose gap needs the eigenvalues
  std::vector<double> gaps;
  while (!todo.empty()) {
    J.resize(2 * n, 2 * n * static_cast<long>(todo.size()));
    eig.clear();
    for (std::size_t b = 0; b < todo.size(); ++b) {
      const int i = todo[b];
      const double* q = QU + static_cast<long>(i) * 2 * n;
      double bound = 0.0;
      r_abs[i] = evaluate(t[i], q, q + n, V.data(), J.data() + static_cast<long>(b) * nn4, &bound);
      scale = std::max(scale, V.lpNorm<Eigen::Infinity>());
      bounded[i] = !options.exact && bound <= options.threshold;
      delta[i] = bound;
      done[i] = 1;
      if (!bounded[i]) eig.push_back(static_cast<int>(b));
    }
    if (!eig.empty()) {  // the eigenvalues where the bound does not decide, in one batch
      MatX<double> Je(2 * n, 2 * n * static_cast<long>(eig.size()));
      for (std::size_t e = 0; e < eig.size(); ++e)
        Je.middleCols(2 * n * static_cast<long>(e), 2 * n) = J.middleCols(2 * n * static_cast<long>(eig[e]), 2 * n);
      gaps.assign(eig.size(), 0.0);
      gap(static_cast<int>(eig.size()), Je.data(), gaps.data());
      for (std::size_t e = 0; e < eig.size(); ++e) delta[todo[eig[e]]] = gaps[e];
    }
    todo.clear();
    split.clear();
    const double quiet_delta = options.threshold / options.margin;
    const double quiet_r = options.next_term_threshold / options.margin * scale;
    for (const auto& [i, j] : intervals) {
      if (j - i < 2) continue;
      const double fastest = *std::max_element(speed.begin() + i + 1, speed.begin() + j);
      if (!(std::max(delta[i], delta[j]) <= quiet_delta && std::max(r_abs[i], r_abs[j]) <= quiet_r &&
            fastest <= options.speed_growth * std::max(speed[i], speed[j]))) {
        const int mid = (i + j) / 2;
        todo.push_back(mid);
        split.emplace_back(i, mid);
        split.emplace_back(mid, j);
      }
    }
    std::swap(intervals, split);
  }
  RunCheck out;
  for (int i = 0; i < n_t; ++i) {
    if (!done[i]) continue;
    out.evaluated.push_back(i);
    out.delta.push_back(delta[i]);
    out.r.push_back(scale > 0.0 ? r_abs[i] / scale : 0.0);
    out.bounded.push_back(bounded[i]);
  }
  return out;
}

}  // namespace nonholo
