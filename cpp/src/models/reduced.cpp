// The reduced model (nonholo/models/reduced.hpp), compiled once; its constructor and state
// check live with the slow manifold (slow_manifold.cpp).
#include "nonholo/models/reduced.hpp"

#include "nonholo/models.hpp"

#include <cmath>
#include <limits>
#include <sstream>

namespace nonholo {

template class ModelImpl<ReducedModel, ReducedWork>;
template class ConstrainedModel<ReducedModel, ReducedWork>;
template class ModelImpl<ReducedFrameModel, ReducedWork>;

std::shared_ptr<Model> make_reduced_model(std::shared_ptr<const MechanicalSystem> system, int order,
                                          std::shared_ptr<const CompiledSlip> compiled) {
  return std::make_shared<ReducedModel>(std::move(system), order, std::move(compiled));
}

std::shared_ptr<Model> make_reduced_frame_model(std::shared_ptr<const Frame> frame, int order,
                                                std::shared_ptr<const CompiledSlip> compiled) {
  return std::make_shared<ReducedFrameModel>(std::move(frame), order, std::move(compiled));
}

std::vector<std::string> reduced_rhs_tapes(int order, const CompiledSlip* compiled) {
  if (order == 0) return {"dynamics"};
  if (order == 1 && compiled == nullptr) return {"split_base", "velocity_part"};
  if (compiled != nullptr) return {"slip", "projection"};
  return {"projection"};
}

std::vector<std::string> ReducedModel::own_tape_names() const {
  if (compiled_ == nullptr) return {};
  return {"slip"};
}

const Tape* ReducedModel::own_tape(const std::string& name) const {
  return name == "slip" && compiled_ != nullptr ? &compiled_->tape() : nullptr;
}

std::vector<std::string> ReducedFrameModel::rhs_tapes() const {
  std::vector<std::string> tapes = reduced_rhs_tapes(order_, compiled_.get());
  tapes.push_back(frame_->voronets() ? "frame_values" : "frame");
  return tapes;
}

std::vector<std::string> ReducedFrameModel::own_tape_names() const {
  std::vector<std::string> names = frame_->tape_names();
  if (compiled_ != nullptr) names.push_back("slip");
  return names;
}

const Tape* ReducedFrameModel::own_tape(const std::string& name) const {
  if (name == "slip") return compiled_ != nullptr ? &compiled_->tape() : nullptr;
  return frame_->tape_named(name);
}

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

}  // namespace

// The growth recorded by the right-hand sides since the last check (max|B_aj| of a Voronets
// frame, the LU pivot ratio of X for a frame given by vectors) includes rejected trial points:
// above the bound it is measured again at the accepted state y, which decides.
FrameCheck ReducedFrameModel::frame_check(double, const double* y, const double* p, Workspace& ws,
                                          bool at_state) const {
  ReducedWork<double>& w = work(ws);
  FrameCheck check;
  const double bound = frame_->voronets() ? kFrameResplitGrowth : kFrameSingularCondition;
  if (!at_state && !(w.frame.growth > bound)) {
    w.frame.growth = 0.0;
    return check;
  }
  w.frame.growth = 0.0;
  if (frame_->voronets()) {
    frame_->evaluate_B(y, p, w.frame);
    check.measure = w.frame.growth;
    w.frame.growth = 0.0;
    if (check.measure > bound) check.action = FrameCheck::kResplit;
    return check;
  }
  frame_->evaluate(y, p, w.frame);
  check.measure = condition_1(w.frame.X(), w.lu);
  if (check.measure > bound) {
    check.action = FrameCheck::kSingular;
    check.message = "the frame X(q) of the reduced model is nearly singular: its condition number is " +
                    short_number(check.measure) + " (1-norm; the run stops above " + short_number(bound) +
                    ", where the frame would amplify the integration error of w by about " +
                    short_number(std::sqrt(bound)) + "). A frame given by its vectors cannot be re-chosen during a "
                    "run: pass a frame regular along the run, the default Voronets frame (re-split automatically), "
                    "or use velocities='coordinates'";
  }
  return check;
}

// u = X_D w with the current split, the split of maximal volume at q, w = u_r in it.
std::vector<int> ReducedFrameModel::resplit(double, double* y, const double* p, Workspace& ws) const {
  Work& W = static_cast<Work&>(ws);
  ReducedWork<double>& w = W.d;
  const int n = system().n(), m = frame_->rank(), k = n - m;
  frame_->evaluate_B(y, p, w.frame);
  w.u.resize(n);
  for (int j = 0; j < m; ++j) w.u(w.frame.free[j]) = y[n + j];
  for (int a = 0; a < k; ++a) {
    double sum = 0.0;
    for (int j = 0; j < m; ++j) sum += w.frame.B(a, j) * y[n + j];
    w.u(w.frame.solved[a]) = sum;
  }
  std::vector<int> solved = frame_->best_split(y, p, w.frame.solved);
  frame_->set_split(solved, w.frame);
  frame_->set_split(solved, W.j.frame);
  for (int j = 0; j < m; ++j) y[n + j] = w.u(w.frame.free[j]);
  w.frame.growth = 0.0;
  return solved;
}

void ReducedFrameModel::reset_frame(Workspace& ws) const {
  if (!frame_->voronets()) return;
  Work& W = static_cast<Work&>(ws);
  frame_->set_split(frame_->solved(), W.d.frame);
  frame_->set_split(frame_->solved(), W.j.frame);
  W.d.frame.growth = 0.0;
}

// u = X_D(q) w in the run's current frame.
const double* ReducedFrameModel::event_velocity(double, const double* y, const double* p, Workspace& ws) const {
  ReducedWork<double>& w = work(ws);
  const int n = system().n(), m = frame_->rank();
  FrameGeometry<double>& f = w.frame;
  const double growth = f.growth;  // an event is not a right-hand side: the watch ignores it
  if (frame_->voronets()) {
    frame_->evaluate_B(y, p, f);
    f.velocity.resize(n);
    for (int j = 0; j < m; ++j) f.velocity(f.free[j]) = y[n + j];
    for (int a = 0; a < n - m; ++a) f.velocity(f.solved[a]) = f.B.row(a).dot(Eigen::Map<const VecX<double>>(y + n, m));
  } else {
    frame_->evaluate(y, p, f);
    f.velocity = f.X().leftCols(m) * Eigen::Map<const VecX<double>>(y + n, m);
  }
  f.growth = growth;
  return f.velocity.data();
}

}  // namespace nonholo
