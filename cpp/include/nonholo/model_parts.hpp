// The parts of a model (model.hpp): what some models have and others lack, each an interface of
// its own. A model answers Model::parts() with a pointer to each part it has (null for the
// others); the run code asks for a part (model.constraints(), model.frame_watch(), ...) and
// calls it, instead of asking a flag and then a method of the model.
//
//   part            who has it                                              replaces
//   ConstraintSet   nonholonomic, vakonomic, reduced (k > 0), the sparse     constrained(), the residual,
//                   nonholonomic model                                      the projections
//   FrameWatcher    Hamel, frame-vakonomic, reduced in a frame               watches_frame(), frame_check()...
//   VelocityMap     Hamel, frame-vakonomic, reduced (both forms)            the velocity events see
//   SparseJacobian  the sparse models                                       sparse(), jacobian_structure()
//   TapeSet         every model built from tapes (not the sparse models,    rhs_tapes(), fusable(), own tapes
//                   whose sparse tape has no C translation)
//   CostEstimate    every model                                             the four cost estimates
//   JacobianPaths   the dense models (ModelImpl)                            jacobian_dual, implicit_jacobian
//
// A part is implemented by the model class itself (a mixin base: ConstrainedModel,
// FrameWatchedModel, ModelImpl), so a part lives as long as its model and reads its workspace.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nonholo/sparse_structure.hpp"
#include "nonholo/tape/tape_name.hpp"

namespace nonholo {

struct Workspace;
class Tape;
class FusedRhs;

// The constraint set A(q) v = b(q, t) of a model whose velocities live on it: the drift
// control's residual and projections. Every method takes the model's workspace.
class ConstraintSet {
 public:
  virtual ~ConstraintSet() = default;
  // |A v - b| and the scale it is measured against (|A| |v| + |b|).
  virtual void constraint_residual(double t, const double* y, const double* p, Workspace& ws, double* residual,
                                   double* scale) const = 0;
  // corr such that y + corr satisfies the constraint; err (if not null) is projected onto the
  // tangent space of the constraint set, as CVODE's projection interface expects. Both are
  // orthogonal in the norm with the given error weights (CVODE's ewt) when `weights` is not
  // null, in the metric G otherwise.
  virtual void project(double t, const double* y, const double* p, double* corr, double* err, const double* weights,
                       Workspace& ws) const = 0;
  // Projects sensitivities s_j (with their parameter index_j) onto the linearized constraint
  // A s_v + d/dq(A v - b) s_q + d/dp(A v - b) = 0, correcting velocities only, with the
  // projection's own norm (see project): the derivative of the projected state.
  virtual void project_sensitivities(double t, const double* y, const double* p, int n_dir, double* const* s,
                                     const int* index, const double* weights, Workspace& ws) const = 0;
};

// A model whose velocity states are quasi-velocities of a frame that can turn singular along a
// run (the frame form of the reduced model, the Hamel and frame-vakonomic models; one
// implementation, models/frame_watch.hpp) is watched by the integrator after every step:
// frame_check says whether the frame is still well conditioned (kNone), must be replaced by
// another at the current state (kResplit: resplit() maps y to it, and CVODE restarts there),
// or is nearly singular with no replacement (kSingular: the run stops with `message`).
struct FrameCheck {
  enum Action { kNone, kResplit, kSingular };
  Action action = kNone;
  double measure = 0.0;  // what was compared with the bound
  std::string message;
};

class FrameWatcher {
 public:
  virtual ~FrameWatcher() = default;
  // `at_state`: measure at y itself (the start of a run); otherwise from what the right-hand
  // sides since the previous check recorded, at no cost.
  virtual FrameCheck frame_check(double t, const double* y, const double* p, Workspace& ws, bool at_state) const = 0;
  // Maps y in place to the new frame of a kResplit and evaluates with it from now on; returns
  // the frame's new description (the solved coordinates of a Voronets frame).
  virtual std::vector<int> resplit(double t, double* y, const double* p, Workspace& ws) const = 0;
  // Back to the model's own frame (a workspace returned to the pool: the next run or
  // evaluation starts in the frame its state is given in).
  virtual void reset_frame(Workspace& ws) const = 0;
  // The state's velocity in coordinates, u = X_D(q) w (a reduced model's u, without its slip):
  // the no-slip motion a contact-force margin event evaluates (event_values.hpp).
  virtual const double* state_velocity(const double* y, const double* p, Workspace& ws) const = 0;
};

// A model whose state holds another velocity than q' (the quasi-velocities w of a frame, a
// reduced model's u, whose q' = u + s adds the slip): the velocity q' a symbolic event
// g(t, q, q') sees (event_values.hpp), and its derivative, which the sensitivity of the event's
// time differentiates (sensitivity.cpp). Models whose state is [q, q', ...] lack the part.
class VelocityMap {
 public:
  virtual ~VelocityMap() = default;
  // q' at (t, y) into u (n entries).
  virtual void velocity(double t, const double* y, const double* p, double* u, Workspace& ws) const = 0;
  // q' into u and its directional derivative du along the state's direction dy, the time's dt
  // and the parameter `parameter` (-1: none).
  virtual void velocity_derivative(double t, const double* y, const double* dy, double dt, const double* p,
                                   int parameter, double* u, double* du, Workspace& ws) const = 0;
};

// A Jacobian stored sparse (models/sparse_backend.hpp): its structure (CSC with the diagonal: CVODE's
// sparse Newton matrix) and its values in that order.
class SparseJacobian {
 public:
  virtual ~SparseJacobian() = default;
  virtual const JacobianStructure& jacobian_structure() const = 0;
  virtual void sparse_jacobian(double t, const double* y, const double* p, double* values, Workspace& ws) const = 0;
};

// The tapes a model evaluates, for model.compile() (tape_codegen.cpp) and the fused right-hand
// side (fused_rhs.hpp).
class TapeSet {
 public:
  virtual ~TapeSet() = default;
  // The tapes one right-hand side evaluates in doubles, the constraint tape of the drift control
  // (constrained models) and the implicit Jacobian's tape where compiling it pays
  // (compiled_jacobian_pays): what model.compile() translates to C by default. Tapes evaluated
  // only in other scalar types (dual numbers, Taylor series) are left out, since a compiled
  // kernel serves doubles only.
  virtual std::vector<TapeName> rhs_tapes() const { return {TapeName::Dynamics}; }
  // The model's own tapes, after the system's (Slip, h^(1..K) of a CompiledSlip; Frame,
  // FrameValues, the tapes of an anholonomic frame).
  virtual std::vector<TapeName> own_tape_names() const { return {}; }
  virtual const Tape* own_tape(TapeName) const { return nullptr; }
  // True when the model's whole eval can be traced into one tape (fused_rhs.hpp); then
  // trace_fused traces it at (t, y) with parameters p.
  virtual bool fusable() const { return false; }
  virtual std::shared_ptr<const FusedRhs> trace_fused(double t, const double* y, const double* p) const = 0;
};

// Estimated costs, for the method choice and BDF's Jacobian refresh policy (model.cpp).
class CostEstimate {
 public:
  virtual ~CostEstimate() = default;
  // Time of one rhs() in nanoseconds of the machine the cost constants were measured on
  // (model.cpp): converts the integrator's fixed cost of a step into right-hand sides.
  virtual double rhs_cost_ns() const = 0;
  // One jacobian() in right-hand sides: the cheaper of the two ways where a model has both
  // (jacobian() takes that one).
  virtual double jacobian_cost() const = 0;
  // The same for the Jacobian by dual numbers through the whole field (JacobianPaths::jacobian_dual).
  virtual double dual_jacobian_cost() const = 0;
  // The same for the implicit Jacobian; NaN for the models that have none.
  virtual double implicit_jacobian_cost() const = 0;
};

// The ways to a dense model's Jacobian besides jacobian() (which takes the cheaper): the
// reference the implicit Jacobians are tested against, and the implicit Jacobian itself.
class JacobianPaths {
 public:
  virtual ~JacobianPaths() = default;
  // By dual numbers pushed through the whole vector field.
  virtual void jacobian_dual(double t, const double* y, const double* p, double* J, Workspace& ws) const = 0;
  // By implicit differentiation of the model's own solves (friction, nonholonomic); false, J
  // untouched, for the models that have none.
  virtual bool implicit_jacobian(double t, const double* y, const double* p, double* J, Workspace& ws) const = 0;
};

// What Model::parts() answers: a pointer to each part the model has, null for the others.
struct ModelParts {
  const ConstraintSet* constraints = nullptr;
  const FrameWatcher* frame_watch = nullptr;
  const VelocityMap* velocity_map = nullptr;
  const SparseJacobian* sparse_jacobian = nullptr;
  const TapeSet* tapes = nullptr;
  const CostEstimate* cost = nullptr;
  const JacobianPaths* jacobian_paths = nullptr;
};

}  // namespace nonholo
