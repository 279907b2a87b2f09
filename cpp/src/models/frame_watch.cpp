// The frame watch shared by the models in quasi-velocities (nonholo/models/frame_watch.hpp).
#include "nonholo/models/frame_watch.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "nonholo/scalar/dual.hpp"

namespace nonholo {

namespace {

// ||X||_1 ||X^-1||_1 (infinite when X is singular to working precision).
double condition_1(const MatX<double>& X, Lu<double>& lu) {
  if (!lu.compute(X)) return std::numeric_limits<double>::infinity();
  MatX<double> inverse;
  lu.inverse(inverse);
  return X.cwiseAbs().colwise().sum().maxCoeff() * inverse.cwiseAbs().colwise().sum().maxCoeff();
}

std::string short_number(double x) {
  std::ostringstream os;
  os.precision(3);
  os << x;
  return os.str();
}

// u = X_D w = (w on r, B w on s) with f.B evaluated in f's current split.
void voronets_velocity(const FrameGeometry<double>& f, const double* w, int n, VecX<double>& u) {
  const int m = static_cast<int>(f.free.size());
  Eigen::Map<const VecX<double>> wv(w, m);
  u.resize(n);
  for (int j = 0; j < m; ++j) u(f.free[j]) = w[j];
  for (int a = 0; a < n - m; ++a) u(f.solved[a]) = f.B.row(a).dot(wv);
}

}  // namespace

// The growth recorded by the right-hand sides since the last check includes rejected trial
// points: above the bound it is measured again at the accepted state q, which decides.
FrameCheck check_frame(const Frame& frame, const double* q, const double* p, FrameGeometry<double>& f,
                       Lu<double>& lu, bool at_state, const FrameWatchText& text) {
  FrameCheck check;
  const double bound = frame.voronets() ? FrameWatch::kResplitGrowth : FrameWatch::kSingularCondition;
  if (!at_state && !(f.growth > bound)) {
    f.growth = 0.0;
    return check;
  }
  f.growth = 0.0;
  if (frame.voronets()) {
    frame.evaluate_B(q, p, f);
    check.measure = f.growth;
    f.growth = 0.0;
    if (check.measure > bound) check.action = FrameCheck::kResplit;
    return check;
  }
  frame.evaluate(q, p, f);
  check.measure = condition_1(f.X(), lu);
  if (check.measure > bound) {
    check.action = FrameCheck::kSingular;
    check.message = "the frame X(q) of the " + text.model + " is nearly singular: its condition number is " +
                    short_number(check.measure) + " (1-norm; the run stops above " + short_number(bound) +
                    ", where the frame would amplify the integration error of " + text.velocities + " by about " +
                    short_number(std::sqrt(bound)) + "). A frame given by its vectors cannot be re-chosen during a "
                    "run: pass a frame regular along the run, the default Voronets frame (re-split automatically), "
                    "or " + text.alternative;
  }
  return check;
}

const double* frame_velocity_at(const Frame& frame, const double* q, const double* w, const double* p,
                                FrameGeometry<double>& f) {
  const int n = frame.n(), m = frame.rank();
  const double growth = f.growth;  // an event is not a right-hand side: the watch ignores it
  if (frame.voronets()) {
    frame.evaluate_B(q, p, f);
    voronets_velocity(f, w, n, f.velocity);
  } else {
    frame.evaluate(q, p, f);
    f.velocity = f.X().leftCols(m) * Eigen::Map<const VecX<double>>(w, m);
    if (frame.has_offset()) f.velocity += f.w0();
  }
  f.growth = growth;
  return f.velocity.data();
}

void frame_velocity_derivative(const Frame& frame, const FrameGeometry<double>& current, const double* q,
                               const double* dq, const double* w, const double* dw, const double* p, int parameter,
                               double* u, double* du) {
  using D = Dual<double, 1>;
  const int n = frame.n(), m = frame.rank(), np = frame.system().n_params();
  std::vector<D> qd(n), pd(np);
  VecX<D> wd(m), ud(n);
  for (int i = 0; i < n; ++i) {
    qd[i] = D(q[i]);
    qd[i].d[0] = dq[i];
  }
  for (int j = 0; j < m; ++j) {
    wd(j) = D(w[j]);
    wd(j).d[0] = dw[j];
  }
  for (int i = 0; i < np; ++i) pd[i] = D(p[i]);
  if (parameter >= 0 && parameter < np) pd[parameter].d[0] = 1.0;
  FrameGeometry<D> f;
  f.solved = current.solved;  // the run's split (empty: the frame's own)
  f.free = current.free;
  if (frame.voronets()) {
    frame.evaluate_B(qd.data(), pd.data(), f);
    for (int j = 0; j < m; ++j) ud(f.free[j]) = wd(j);
    for (int a = 0; a < n - m; ++a) ud(f.solved[a]) = f.B.row(a).dot(wd);
  } else {
    frame.evaluate(qd.data(), pd.data(), f);
    ud = f.X().leftCols(m) * wd;
    if (frame.has_offset()) ud += f.w0();
  }
  for (int i = 0; i < n; ++i) {
    u[i] = ud(i).v;
    du[i] = ud(i).d[0];
  }
}

// u = X_D w with the current split, the split of maximal volume at q, w = u_r in it.
FrameResplit resplit_frame(const Frame& frame, const double* q, double* w, const double* p, FrameGeometry<double>& f,
                           FrameGeometry<JacobianScalar>& fj) {
  const int n = frame.n(), m = frame.rank();
  FrameResplit change;
  frame.evaluate_B(q, p, f);
  change.As_old = f.As;
  voronets_velocity(f, w, n, f.velocity);
  change.solved = frame.best_split(q, p, f.solved);
  frame.set_split(change.solved, f);
  frame.set_split(change.solved, fj);
  for (int j = 0; j < m; ++j) w[j] = f.velocity(f.free[j]);
  frame.evaluate_B(q, p, f);
  change.As_new = f.As;
  f.growth = 0.0;
  return change;
}

void reset_frame_split(const Frame& frame, FrameGeometry<double>& f, FrameGeometry<JacobianScalar>& fj) {
  if (!frame.voronets()) return;
  frame.set_split(frame.solved(), f);
  frame.set_split(frame.solved(), fj);
  f.growth = 0.0;
}

}  // namespace nonholo
