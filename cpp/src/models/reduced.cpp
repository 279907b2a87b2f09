// The reduced model (nonholo/models/reduced.hpp), compiled once; its constructor and state
// check live with the slow manifold (slow_manifold.cpp).
#include "nonholo/models/reduced.hpp"

#include <algorithm>
#include <cmath>
#include <vector>


#include "nonholo/models.hpp"

namespace nonholo {

template class ModelImpl<ReducedModel, ReducedWork>;
template class ConstrainedModel<ReducedModel, ReducedWork>;
template class ModelImpl<ReducedFrameModel, ReducedWork>;
template class FrameWatchedModel<ReducedFrameModel, ReducedWork>;

std::shared_ptr<Model> make_reduced_model(std::shared_ptr<const MechanicalSystem> system, int order,
                                          std::shared_ptr<const CompiledSlip> compiled,
                                          std::shared_ptr<const LawExpansion> law) {
  return std::make_shared<ReducedModel>(std::move(system), order, std::move(compiled), std::move(law));
}

std::shared_ptr<Model> make_reduced_frame_model(std::shared_ptr<const Frame> frame, int order,
                                                std::shared_ptr<const CompiledSlip> compiled) {
  return std::make_shared<ReducedFrameModel>(std::move(frame), order, std::move(compiled));
}

std::shared_ptr<const FusedRhs> ReducedModel::trace_fused(double t, const double* y, const double* p) const {
  std::shared_ptr<const FusedRhs> range = ConstrainedModel::trace_fused(t, y, p);
  const MechanicalSystem& sys = system();
  const int n = sys.n(), k = sys.k();
  if (k == 0 || k == n || order_ > 1) return range;
  Geometry<double> g;
  sys.evaluate_constraints(t, y, y + n, p, g);
  const std::vector<int> solved = maximal_volume_split(g.A());
  if (solved.empty()) return range;
  std::shared_ptr<const FusedRhs> null;
  try {
    null = trace_fused_rhs(n_states(), n_params(), t, y, p,
                           [this, &solved](double tt, const Traced* yt, const Traced* pt, Traced* ydot) {
                             ReducedWork<Traced> w;
                             eval_nullspace(tt, yt, pt, ydot, w, solved);
                           },
                           "null-space");
  } catch (const ModelError&) {
    return range;
  } catch (const Traced::TooLarge&) {
    return range;
  }
  return null->tape().n_instructions() < range->tape().n_instructions() ? null : range;
}

// Dense operations (multiply-adds) of one right-hand side of order 0 or 1 in doubles, counted from
// the code. Range space (first_order_velocity_and_acceleration): G = L D L^T, B = L^-1 A^T, M = B^T C
// factored, and about seven n-, n x k- or k x k-sweeps. Null space (voronets_reduced_rate): the LU of
// A_s and B = -A_s^-1 A_r, G X_D and X_D^T G X_D factored, and k x k, n x k and m x k sweeps. Its
// operations cost more instructions each (pivot searches, index lists, short LU sweeps): measured by
// callgrind per right-hand side (benchmarks/reduced_vs_stiff.py --work-precision), the null space
// takes 0.96x the range space's instructions at order 1 on the chain N = 8 (operation ratio 0.73),
// 0.89x on the chain N = 16, 0.86x and 0.80x at order 0, but 1.25x and 1.09x on the sleigh (n = 3,
// k = 1; ratio 0.58). Hence the rule: at least 4 constraints and at most 0.75 of the operations.
bool reduced_nullspace_pays(const MechanicalSystem& sys, int order) {
  const double n = sys.n(), k = sys.k(), m = n - k;
  if (order > 1 || k < 4 || m == 0) return false;
  const double range = n * n * n / 6 + n * n * k / 2 + n * k * k / 2 + k * k * k / 6 + 4 * n * n + 6 * n * k;
  const double null = k * k * k / 3 + m * k * k + m * n * (k + 1) + m * m * (k + 1) / 2 + m * m * m / 6 +
                      6 * k * k + n * n + 5 * n * k + 2 * m * k;
  return null < 0.75 * range;
}

std::vector<TapeName> reduced_rhs_tapes(int order, const CompiledSlip* compiled, bool law) {
  if (order == 0) return {TapeName::Dynamics};
  if (law || (order == 1 && compiled == nullptr)) return {TapeName::SplitBase, TapeName::VelocityPart};
  if (compiled != nullptr) return {TapeName::Slip, TapeName::Projection};
  return {TapeName::Projection};
}

std::vector<TapeName> ReducedModel::own_tape_names() const {
  if (compiled_ == nullptr) return {};
  return {TapeName::Slip};
}

const Tape* ReducedModel::own_tape(TapeName name) const {
  return name == TapeName::Slip && compiled_ != nullptr ? &compiled_->tape() : nullptr;
}

std::vector<TapeName> ReducedFrameModel::rhs_tapes() const {
  // orders 0 and 1 in a Voronets frame evaluate no slip tape (voronets_reduced_rate)
  const bool direct = frame_->voronets() && order_ <= 1;
  std::vector<TapeName> tapes = reduced_rhs_tapes(order_, direct ? nullptr : compiled_.get(), false);
  tapes.push_back(frame_->voronets() ? TapeName::FrameValues : TapeName::Frame);
  return tapes;
}

std::vector<TapeName> ReducedFrameModel::own_tape_names() const {
  std::vector<TapeName> names = frame_->tape_names();
  if (compiled_ != nullptr) names.push_back(TapeName::Slip);
  return names;
}

const Tape* ReducedFrameModel::own_tape(TapeName name) const {
  if (name == TapeName::Slip) return compiled_ != nullptr ? &compiled_->tape() : nullptr;
  return frame_->tape_named(name);
}

void reduced_velocity(const Model& model, double t, const double* y, const double* p, double* u, Workspace& ws) {
  std::vector<double> f(model.n_states());
  model.rhs(t, y, p, f.data(), ws);
  std::copy(f.begin(), f.begin() + model.system().n(), u);
}

void reduced_velocity_derivative(const Model& model, double t, const double* y, const double* dy, double dt,
                                 const double* p, int parameter, double* u, double* du, Workspace& ws) {
  const MechanicalSystem& sys = model.system();
  const int n = sys.n();
  std::vector<double> df(model.n_states());
  const double* directions[1] = {dy};
  double* out[1] = {df.data()};
  model.directional_derivatives(t, y, p, 1, directions, &parameter, out, ws);
  reduced_velocity(model, t, y, p, u, ws);
  std::copy(df.begin(), df.begin() + n, du);
  if (dt != 0.0 && (sys.force_depends_on_time() || sys.affine_depends_on_time())) {
    const double h = 1e-6 * std::max(1.0, std::abs(t));  // error O(h^2) relative to the slip's t-scale
    std::vector<double> up(n), down(n);
    reduced_velocity(model, t + h, y, p, up.data(), ws);
    reduced_velocity(model, t - h, y, p, down.data(), ws);
    for (int i = 0; i < n; ++i) du[i] += dt * (up[i] - down[i]) / (2.0 * h);
  }
}

}  // namespace nonholo
