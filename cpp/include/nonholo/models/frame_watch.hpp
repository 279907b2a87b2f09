// The frame watch of the models whose velocity state is the quasi-velocities of a frame X(q) of
// D (the frame form of the reduced model, the Hamel and the frame-vakonomic models): after every
// step the integrator asks whether the frame is still usable at the state (the part FrameWatcher,
// model_parts.hpp).
//
//   * A Voronets frame X_D = d/dr + B d/ds, B = -A_s^-1 A_r (frame.hpp) is re-split when
//     max|B_aj| exceeds kResplitGrowth: the solved coordinates become those of the split of
//     maximal volume at q (Frame::best_split, all |B_aj| <= 1.01), and the state is mapped,
//         w (old split)  ->  u = X_D w = (w on r, B w on s)  ->  w' = u_r' (new split),
//     the physical velocity u unchanged (the run then restarts from it). State after the
//     quasi-velocities (the vakonomic multipliers) is mapped by the model (remap_extra).
//   * A frame given by its vectors cannot be re-chosen: the run stops (FRAME_SINGULAR) where
//     the 1-norm condition number of X exceeds kSingularCondition.
//
// Between steps the right-hand sides record a growth indicator in FrameGeometry::growth:
// max|B_aj| of a Voronets frame (no extra work), the LU pivot ratio of X, a lower bound of its
// condition number, for a frame given by vectors (no extra work where the model factors X
// anyway; the Hamel model factors it for this, n x n). Only above the bound is it measured
// again at the accepted state, which decides. FrameWatchedModel implements the FrameWatcher part
// once for all three models from their frame and their workspace (WorkT<S>::frame, ::lu).
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "nonholo/frame.hpp"
#include "nonholo/model.hpp"

namespace nonholo {

struct FrameWatch {
  static constexpr double kResplitGrowth = 10.0;       // max|B_aj| above which a Voronets frame is re-split
  static constexpr double kSingularCondition = 1e6;    // cond_1(X) above which a vector frame stops the run
};

// What a model says in the FRAME_SINGULAR message: its name ("reduced model"), the name of its
// quasi-velocities ("w") and where to go instead ("use velocities='coordinates'").
struct FrameWatchText {
  std::string model, velocities, alternative;
};

// The growth indicator of a frame given by vectors, recorded by a right-hand side that has
// factored X (values only).
template <class S>
void record_frame_growth(FrameGeometry<S>& f, const Lu<S>& lu) {
  f.growth = std::max(f.growth, lu.pivot_ratio());
}

// The check of FrameWatcher::frame_check (see the top of this file) at the state q.
FrameCheck check_frame(const Frame& frame, const double* q, const double* p, FrameGeometry<double>& f,
                       Lu<double>& lu, bool at_state, const FrameWatchText& text);

// u = X_D(q) w in f's current split (Voronets) or from the frame's vectors, into f.velocity.
const double* frame_velocity_at(const Frame& frame, const double* q, const double* w, const double* p,
                                FrameGeometry<double>& f);

// u = X_D(q) w and its directional derivative du along (dq, dw) and the parameter `parameter`
// (-1: none), in the split of `current` (Voronets) or from the frame's vectors (dual numbers).
void frame_velocity_derivative(const Frame& frame, const FrameGeometry<double>& current, const double* q,
                               const double* dq, const double* w, const double* dw, const double* p, int parameter,
                               double* u, double* du);

// A re-split of a Voronets frame at q: the new solved coordinates and the blocks A_s of A(q) of
// the old and the new split (for the models that map more state than w).
struct FrameResplit {
  std::vector<int> solved;
  MatX<double> As_old, As_new;
};

// w (the m quasi-velocities, in place) mapped from f's current split to the split of maximal
// volume at q, which f and fj (the Jacobian's workspace) evaluate with from now on.
FrameResplit resplit_frame(const Frame& frame, const double* q, double* w, const double* p, FrameGeometry<double>& f,
                           FrameGeometry<JacobianScalar>& fj);

// f and fj back to the frame's own split (a workspace returned to its model's pool).
void reset_frame_split(const Frame& frame, FrameGeometry<double>& f, FrameGeometry<JacobianScalar>& fj);

// The FrameWatcher part of a model in quasi-velocities: state [q, w (m), extra], WorkT<S>
// with members `frame` (FrameGeometry<S>) and `lu` (Lu<S>). Derived supplies
// `FrameWatchText frame_watch_text() const` and, when it has state after w,
// `void remap_extra(double* extra, const FrameResplit&) const`.
template <class Derived, template <class> class WorkT>
class FrameWatchedModel : public ModelImpl<Derived, WorkT>, public FrameWatcher, public VelocityMap {
  using Base = ModelImpl<Derived, WorkT>;

 public:
  explicit FrameWatchedModel(std::shared_ptr<const Frame> frame)
      : Base(frame->system_ptr()), frame_(std::move(frame)) {}

  const Frame& frame() const { return *frame_; }

  ModelParts parts() const override {
    ModelParts parts = Base::parts();
    parts.frame_watch = this;
    parts.velocity_map = this;
    return parts;
  }

  FrameCheck frame_check(double, const double* y, const double* p, Workspace& ws, bool at_state) const override {
    WorkT<double>& w = Base::work(ws);
    return check_frame(*frame_, y, p, w.frame, w.lu, at_state, this->derived().frame_watch_text());
  }

  std::vector<int> resplit(double, double* y, const double* p, Workspace& ws) const override {
    auto& W = static_cast<typename Base::Work&>(ws);
    const int n = this->system().n(), m = frame_->rank();
    FrameResplit change = resplit_frame(*frame_, y, y + n, p, W.d.frame, W.j.frame);
    this->derived().remap_extra(y + n + m, change);
    return std::move(change.solved);
  }

  void reset_frame(Workspace& ws) const override {
    auto& W = static_cast<typename Base::Work&>(ws);
    reset_frame_split(*frame_, W.d.frame, W.j.frame);
  }

  // u = X_D(q) w (+ w0(q)) in the run's current frame.
  const double* state_velocity(const double* y, const double* p, Workspace& ws) const override {
    return frame_velocity_at(*frame_, y, y + this->system().n(), p, Base::work(ws).frame);
  }

  // The VelocityMap: q' = u (the reduced model in a frame adds its slip: ReducedFrameModel
  // overrides both). The frame does not depend on t.
  void velocity(double, const double* y, const double* p, double* u, Workspace& ws) const override {
    const double* v = state_velocity(y, p, ws);
    std::copy(v, v + this->system().n(), u);
  }
  void velocity_derivative(double, const double* y, const double* dy, double, const double* p, int parameter,
                           double* u, double* du, Workspace& ws) const override {
    const int n = this->system().n();
    frame_velocity_derivative(*frame_, Base::work(ws).frame, y, dy, y + n, dy + n, p, parameter, u, du);
  }

  // No state after w (the reduced and Hamel models).
  void remap_extra(double*, const FrameResplit&) const {}

 protected:
  std::shared_ptr<const Frame> frame_;
};

}  // namespace nonholo
