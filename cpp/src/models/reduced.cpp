// The reduced model (nonholo/models/reduced.hpp), compiled once; its constructor and state
// check live with the slow manifold (slow_manifold.cpp).
#include "nonholo/models/reduced.hpp"

#include "nonholo/models.hpp"

namespace nonholo {

template class ModelImpl<ReducedModel, ReducedWork>;
template class ConstrainedModel<ReducedModel, ReducedWork>;
template class ModelImpl<ReducedFrameModel, ReducedWork>;
template class FrameWatchedModel<ReducedFrameModel, ReducedWork>;

std::shared_ptr<Model> make_reduced_model(std::shared_ptr<const MechanicalSystem> system, int order,
                                          std::shared_ptr<const CompiledSlip> compiled) {
  return std::make_shared<ReducedModel>(std::move(system), order, std::move(compiled));
}

std::shared_ptr<Model> make_reduced_frame_model(std::shared_ptr<const Frame> frame, int order,
                                                std::shared_ptr<const CompiledSlip> compiled) {
  return std::make_shared<ReducedFrameModel>(std::move(frame), order, std::move(compiled));
}

}  // namespace nonholo
