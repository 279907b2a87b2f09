// Quantities along a whole trajectory: one call per quantity, one workspace for all samples,
// so that results (energy, physical velocity, constraint residual) cost one pass in C++
// instead of one checked point evaluation per sample. Arrays are time-major, as
// SimulationOutput stores them: sample i of a trajectory Y with s states is Y + i * s.
#pragma once

#include "nonholo/frame.hpp"
#include "nonholo/model.hpp"
#include "nonholo/slow_manifold_graph.hpp"

namespace nonholo {

// q' = u + sum_{k<=K} eps^k h^(k)(t, q, u) of the reduced model of order K (state [q, u, ...],
// `stride` entries per sample; truncated_slip, from `compiled` when not null). u is not
// required to lie on A u = b: interpolated states miss the constraint set by the solver's
// tolerance, and h^(k) is smooth there.
void slow_manifold_velocity(const MechanicalSystem& sys, const CompiledSlip* compiled, int order, double eps, int n_t,
                            const double* t, const double* Y, int stride, const double* p, double* qdot);

// q' = X_D(q) v^alpha of a model in an anholonomic frame (state [q, v^alpha, ...]).
// `solved`: the split of a Voronets frame to evaluate with (a run's re-split), default its own.
void frame_velocity(const Frame& frame, int n_t, const double* Y, int stride, const double* p, double* qdot,
                    const std::vector<int>* solved = nullptr);

// 1/2 v^T G(q) v + V(q) at (t_i, q_i, v_i); Q is n_t x n (stride `q_stride`), V n_t x n.
void trajectory_energy(const MechanicalSystem& sys, int n_t, const double* t, const double* Q, int q_stride,
                       const double* V, const double* p, double* energy);

// |A v - b| / (|A| |v| + |b|) of the model at every sample (0 for unconstrained models).
void trajectory_constraint_residual(const Model& model, int n_t, const double* t, const double* Y,
                                    const double* p, double* residual);

}  // namespace nonholo
