// The nonholonomic model (nonholo/models/nonholonomic.hpp), compiled once.
#include "nonholo/models/nonholonomic.hpp"

#include "nonholo/models.hpp"

namespace nonholo {

template class ModelImpl<NonholonomicModel, MechanicsWork>;
template class ConstrainedModel<NonholonomicModel, MechanicsWork>;

std::shared_ptr<Model> make_nonholonomic_model(std::shared_ptr<const MechanicalSystem> system) {
  return std::make_shared<NonholonomicModel>(std::move(system));
}

}  // namespace nonholo
