// The model kinds, as the rest of the code sees them: factories returning the abstract Model.
// Each kind is compiled once, in cpp/src/models/<kind>.cpp (explicit instantiation of its
// templates for double and the Jacobian's dual numbers), so that the bindings and other
// translation units include no model header.
#pragma once

#include <memory>

#include "nonholo/frame.hpp"
#include "nonholo/model.hpp"

namespace nonholo {

class CompiledSlip;  // nonholo/slow_manifold_graph.hpp: h^(1..K) compiled into one tape
struct LawExpansion;  // nonholo/law_slow_manifold.hpp: a friction law given by tapes

std::shared_ptr<Model> make_nonholonomic_model(std::shared_ptr<const MechanicalSystem> system);
std::shared_ptr<Model> make_vakonomic_model(std::shared_ptr<const MechanicalSystem> system);
std::shared_ptr<Model> make_friction_model(std::shared_ptr<const MechanicalSystem> system);
// The nonholonomic (friction false) or friction model of a large sparse system: the kind's
// equations over the sparse backend (models/sparse_backend.hpp).
std::shared_ptr<Model> make_sparse_model(std::shared_ptr<const MechanicalSystem> system, bool friction);
// Reduced models of order K on the slow manifold, in (q, u) or in a frame's (q, w); `compiled`
// (may be null) evaluates h^(1..K) from one tape instead of Taylor sweeps; `law` (may be null: the
// viscous law) a friction law given by tapes (law_slow_manifold.hpp), in (q, u).
std::shared_ptr<Model> make_reduced_model(std::shared_ptr<const MechanicalSystem> system, int order,
                                          std::shared_ptr<const CompiledSlip> compiled = nullptr,
                                          std::shared_ptr<const LawExpansion> law = nullptr);
std::shared_ptr<Model> make_reduced_frame_model(std::shared_ptr<const Frame> frame, int order,
                                                std::shared_ptr<const CompiledSlip> compiled = nullptr);
std::shared_ptr<Model> make_hamel_model(std::shared_ptr<const Frame> frame);
std::shared_ptr<Model> make_frame_vakonomic_model(std::shared_ptr<const Frame> frame);

// The frame multipliers lambda_a of a Hamel model at (t, q, v^alpha); InputError for other models.
VecX<double> frame_multipliers(const Model& model, double t, const double* q, const double* v, const double* p);

}  // namespace nonholo
