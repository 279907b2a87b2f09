// The vakonomic model (nonholo/models/vakonomic.hpp), compiled once.
#include "nonholo/models/vakonomic.hpp"

#include "nonholo/models.hpp"

namespace nonholo {

template class ModelImpl<VakonomicModel, MechanicsWork>;
template class ConstrainedModel<VakonomicModel, MechanicsWork>;

std::shared_ptr<Model> make_vakonomic_model(std::shared_ptr<const MechanicalSystem> system) {
  return std::make_shared<VakonomicModel>(std::move(system));
}

}  // namespace nonholo
