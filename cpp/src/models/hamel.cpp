// The Hamel and frame-vakonomic models (nonholo/models/hamel.hpp), compiled once.
#include "nonholo/models/hamel.hpp"

#include "nonholo/models.hpp"

namespace nonholo {

VecX<double> HamelModel::multipliers(double t, const double* q, const double* v, const double* p) const {
  const int n = frame_->n(), m = frame_->rank();
  FrameWork<double> w;
  frame_prologue(*frame_, t, q, v, p, w);
  w.vdot = w.rhs;
  w.chol_g.solve_in_place(w.vdot);
  w.wdot = w.a + w.XD * w.vdot;
  w.E = w.geo.G() * w.wdot - w.geo.r();
  return w.frame.X().rightCols(n - m).transpose() * w.E;
}

void FrameVakonomicModel::remap_extra(double* mu, const FrameResplit& change) const {
  Eigen::Map<VecX<double>> mu_v(mu, frame_->n() - frame_->rank());
  Lu<double> lu;
  if (!lu.compute(MatX<double>(change.As_old.transpose())))
    throw ModelError("the multipliers cannot be mapped to the new split: the old block A_s is singular");
  VecX<double> lambda = mu_v;
  lu.solve_in_place(lambda);  // A_s^-T mu, the coordinate multipliers
  mu_v.noalias() = change.As_new.transpose() * lambda;
}

template class ModelImpl<HamelModel, FrameWork>;
template class FrameWatchedModel<HamelModel, FrameWork>;
template class ModelImpl<FrameVakonomicModel, FrameWork>;
template class FrameWatchedModel<FrameVakonomicModel, FrameWork>;

std::shared_ptr<Model> make_hamel_model(std::shared_ptr<const Frame> frame) {
  return std::make_shared<HamelModel>(std::move(frame));
}

std::shared_ptr<Model> make_frame_vakonomic_model(std::shared_ptr<const Frame> frame) {
  if (frame->has_offset())
    throw InputError("the frame-vakonomic model is implemented for linear constraints (a frame without offset)");
  return std::make_shared<FrameVakonomicModel>(std::move(frame));
}

VecX<double> frame_multipliers(const Model& model, double t, const double* q, const double* v, const double* p) {
  const auto* hamel = dynamic_cast<const HamelModel*>(&model);
  if (hamel == nullptr) throw InputError("frame_multipliers needs a Hamel model, got a " + model.kind() + " model");
  return hamel->multipliers(t, q, v, p);
}

}  // namespace nonholo
