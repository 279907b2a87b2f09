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

template class ModelImpl<HamelModel, FrameWork>;
template class ModelImpl<FrameVakonomicModel, FrameWork>;

std::shared_ptr<Model> make_hamel_model(std::shared_ptr<const Frame> frame) {
  return std::make_shared<HamelModel>(std::move(frame));
}

std::shared_ptr<Model> make_frame_vakonomic_model(std::shared_ptr<const Frame> frame) {
  return std::make_shared<FrameVakonomicModel>(std::move(frame));
}

VecX<double> frame_multipliers(const Model& model, double t, const double* q, const double* v, const double* p) {
  const auto* hamel = dynamic_cast<const HamelModel*>(&model);
  if (hamel == nullptr) throw InputError("frame_multipliers needs a Hamel model, got a " + model.kind() + " model");
  return hamel->multipliers(t, q, v, p);
}

}  // namespace nonholo
