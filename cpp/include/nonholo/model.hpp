// A model is a vector field y' = f(t, y; p) built on a MechanicalSystem, with its exact
// Jacobian (forward-mode AD in chunks of dual directions) and, for models whose velocities
// live on the constraint set A v = b, the projection CVODE uses to control drift.
//
// Models are immutable and shared between threads; every evaluation writes into a Workspace
// owned by the caller (one per integration), as Pinocchio separates Model and Data.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "nonholo/fused_rhs.hpp"
#include "nonholo/mechanics.hpp"
#include "nonholo/model_parts.hpp"
#include "nonholo/scalar/dual.hpp"
#include "nonholo/tape/tape_name.hpp"

namespace nonholo {

constexpr int kJacobianChunk = 8;
using JacobianScalar = Dual<double, kJacobianChunk>;

struct Workspace {
  virtual ~Workspace() = default;
};

// A yes/no decided on first use, from any thread (each computes the same answer): for choices
// that read tapes a large system builds only when needed (mechanical_system.hpp).
class LazyChoice {
 public:
  template <class Decide>
  bool get(Decide&& decide) const {
    signed char known = value_.load(std::memory_order_relaxed);
    if (known < 0) {
      known = decide() ? 1 : 0;
      value_.store(known, std::memory_order_relaxed);
    }
    return known != 0;
  }

 private:
  mutable std::atomic<signed char> value_{-1};
};

class Model;

// True for a model class whose eval<S, P> can be traced whole (fused_rhs.hpp): it declares
// `static constexpr bool kTraceable = true`.
template <class D, class = void>
struct is_traceable : std::false_type {};
template <class D>
struct is_traceable<D, std::void_t<decltype(D::kTraceable)>> : std::bool_constant<D::kTraceable> {};

// True when the implicit Jacobian's tape (MechanicalSystem::jacobian_tape) is small enough, against
// the dynamics tape, for model.compile() to build it by default (kCompiledJacobianRatio,
// model.cpp): the C compiler's time grows with the tape, and a large one (the bicycle's, 168k
// instructions) costs minutes to build for a Jacobian a stiff run evaluates tens of times.
bool compiled_jacobian_pays(const MechanicalSystem& system);

// A workspace borrowed from its model's pool (Model::borrow_workspace): handed back, sized by
// its last use, when the lease ends, so the model's next integration or evaluation allocates
// nothing. A workspace holds scratch only: every evaluation writes what it reads, and what it
// keeps between calls is keyed by the inputs (e.g. ReducedWork::mu_params), so a borrowed
// workspace gives the same bits as a new one.
class WorkspaceLease {
 public:
  WorkspaceLease(const Model& model, std::unique_ptr<Workspace> ws) : model_(&model), ws_(std::move(ws)) {}
  WorkspaceLease(WorkspaceLease&& other) noexcept = default;
  WorkspaceLease& operator=(WorkspaceLease&&) = delete;
  WorkspaceLease(const WorkspaceLease&) = delete;
  WorkspaceLease& operator=(const WorkspaceLease&) = delete;
  ~WorkspaceLease();
  Workspace& operator*() const { return *ws_; }
  Workspace* get() const { return ws_.get(); }

 private:
  const Model* model_;
  std::unique_ptr<Workspace> ws_;
};

// What every model is: its sizes, its right-hand side and Jacobian, a workspace, the check of a
// state. Everything else is a part the model has or lacks (model_parts.hpp), asked for by
// constraints(), frame_watch(), sparse_jacobian(), tapes(), cost() and jacobian_paths(): a null
// means the model lacks it. At most 12 virtual methods (tests/test_model_interface.py counts).
class Model {
 public:
  explicit Model(std::shared_ptr<const MechanicalSystem> system) : system_(std::move(system)) {}
  virtual ~Model() = default;

  const MechanicalSystem& system() const { return *system_; }
  const std::shared_ptr<const MechanicalSystem>& system_ptr() const { return system_; }

  virtual std::string kind() const = 0;
  virtual int n_states() const = 0;
  // Parameters: the system's, then the model's own (e.g. eps) appended.
  virtual int n_extra_params() const { return 0; }
  int n_params() const { return system_->n_params() + n_extra_params(); }
  virtual bool stiff() const { return false; }
  // True when y = [q, v] with q' = v exactly (the Jacobian's first n rows are [0, I]): BDF then
  // solves its Newton systems in n unknowns (sundials/second_order_lu.hpp).
  virtual bool second_order() const { return false; }

  virtual std::unique_ptr<Workspace> workspace() const = 0;
  // A workspace from this model's pool of idle ones (a new one when there is none), returned
  // to the pool when the lease ends; thread-safe (models are shared between threads).
  WorkspaceLease borrow_workspace() const;
  virtual void rhs(double t, const double* y, const double* p, double* ydot, Workspace& ws) const = 0;
  // J is n_states x n_states, column-major: J[i + j*n] = d ydot_i / d y_j.
  virtual void jacobian(double t, const double* y, const double* p, double* J, Workspace& ws) const = 0;
  // Forward sensitivity right-hand sides (CVODES): out_j = (df/dy) s_j + df/dp_{index_j}, one
  // directional derivative of f per direction j by dual numbers with the state seeded by s_j
  // and the parameter index_j (none when index_j < 0) seeded by 1. Defined in sensitivity.hpp.
  virtual void directional_derivatives(double t, const double* y, const double* p, int n_dir,
                                       const double* const* s, const int* index, double* const* out,
                                       Workspace& ws) const = 0;
  // Throws ModelError when the data are unusable at y (metric, constraints, friction).
  virtual void check_state(double t, const double* y, const double* p, Workspace& ws) const;

  // The parts this model has (model_parts.hpp), each null when it lacks it.
  virtual ModelParts parts() const { return {}; }
  const ConstraintSet* constraints() const { return parts().constraints; }
  const FrameWatcher* frame_watch() const { return parts().frame_watch; }
  const VelocityMap* velocity_map() const { return parts().velocity_map; }
  const SparseJacobian* sparse_jacobian() const { return parts().sparse_jacobian; }
  const TapeSet* tapes() const { return parts().tapes; }
  const JacobianPaths* jacobian_paths() const { return parts().jacobian_paths; }
  // Every model prices itself (a model class without a CostEstimate is a programming error).
  const CostEstimate& cost() const;
  // The measured cost of a Jacobian in right-hand sides (measured_costs.hpp), timed at (t, y; p)
  // on the first call and kept (a copy of the model keeps it): the Jacobian policy's default.
  // NaN, nothing kept, when the model's evaluations throw there. Thread-safe.
  double measured_jacobian_cost(double t, const double* y, const double* p) const;
  // The kept measurement, NaN before the first.
  double measured_jacobian_cost() const;
  // Keeps `cost` as the measurement (a model made again from its recipe, as pickle does, takes its
  // original's, and so its runs take the same steps). Throws std::invalid_argument unless cost is
  // finite and positive; a model that already keeps one keeps it (one measurement per model).
  void keep_measured_jacobian_cost(double cost) const;

  // Indices of y that hold q and v (for projection and names); the rest is model specific.
  int q_offset() const { return 0; }
  int v_offset() const { return system_->n(); }

  // Every tape the model can evaluate, by name: the system's (MechanicalSystem::tape_names), then
  // the model's own (TapeSet::own_tape_names). named_tape throws InputError naming the choices.
  std::vector<TapeName> tape_names() const;
  const Tape& named_tape(TapeName name) const;
  // The tape part's rhs_tapes() (none without one) and, once fuse() has built it, the fused
  // right-hand side's tape Rhs.
  std::vector<TapeName> compiled_tapes() const;

  // The fused right-hand side (fused_rhs.hpp), for a model whose tape part is fusable(): traces
  // it at a regular point (a few fixed points are tried) with parameters p and keeps it as the
  // tape Rhs; rhs() evaluates it once that tape is compiled (model.compile()). Returns false
  // (nothing kept) when the graph exceeds kMaxFusedNodes; throws InputError when the model cannot
  // be fused, ModelError when no point tried is regular. Like attaching a compiled tape, not
  // thread-safe against running integrations.
  bool fuse(const double* p) const;
  const FusedRhs* fused() const { return fused_.get(); }

 protected:
  std::shared_ptr<const MechanicalSystem> system_;
  // The fused right-hand side, when its tape is compiled (else the model's own eval is cheaper).
  const FusedRhs* compiled_fused() const { return fused_ && fused_->tape().compiled() ? fused_.get() : nullptr; }
  // The InputError of a model that cannot be fused.
  [[noreturn]] void refuse_fusing() const;

 private:
  friend class WorkspaceLease;
  void return_workspace(std::unique_ptr<Workspace> ws) const;
  // Idle workspaces (at most kIdleWorkspaces); a copy of a model starts with none.
  struct WorkspacePool {
    static constexpr std::size_t kIdleWorkspaces = 32;
    std::mutex mutex;
    std::vector<std::unique_ptr<Workspace>> idle;
    WorkspacePool() = default;
    WorkspacePool(const WorkspacePool&) {}
    WorkspacePool& operator=(const WorkspacePool&) { return *this; }
  };
  mutable WorkspacePool pool_;
  struct MeasuredCost {
    mutable std::mutex mutex;
    double jacobian = std::numeric_limits<double>::quiet_NaN();
    MeasuredCost() = default;
    MeasuredCost(const MeasuredCost& other) : jacobian(other.kept()) {}
    MeasuredCost& operator=(const MeasuredCost& other) {
      const double kept_there = other.kept();
      std::lock_guard<std::mutex> lock(mutex);
      jacobian = kept_there;
      return *this;
    }
    double kept() const {
      std::lock_guard<std::mutex> lock(mutex);
      return jacobian;
    }
  };
  mutable MeasuredCost measured_;
  mutable std::shared_ptr<const FusedRhs> fused_;
};

// The cost estimates of a model without a cost model of its own (model.cpp): the dynamics tape
// and a fixed cost; dual numbers cost kJacobianChunk + 1 doubles per operation, once per chunk.
double default_rhs_cost_ns(const Model& model);
double default_dual_jacobian_cost(const Model& model);

// Implements the virtual interface from a template `eval<S>` of the derived model, once for
// doubles (rhs) and once for dual numbers (jacobian), with the parts every dense model has: its
// tapes, its cost estimate (defaults a model kind overrides with its own) and its Jacobian
// paths. WorkT<S> is the model's scratch space (MechanicsWork<S> or a type derived from it).
template <class Derived, template <class> class WorkT = MechanicsWork>
class ModelImpl : public Model, public TapeSet, public CostEstimate, public JacobianPaths {
 public:
  using Model::Model;

  struct Work : Workspace {
    WorkT<double> d;
    WorkT<JacobianScalar> j;
    std::vector<JacobianScalar> y, ydot, p;
    Geometry<Dual<double, 1>> constraints;  // A, b and their derivative along one direction
    std::vector<Dual<double, 1>> q, v;
    MatX<double> top, bottom;                // right-hand sides of the differentiated solves
    VecX<double> vdot;
    std::vector<double> fused_in, fused_out, fused_work;  // the fused right-hand side's scratch
  };

  std::unique_ptr<Workspace> workspace() const override { return std::make_unique<Work>(); }
  ModelParts parts() const override {
    ModelParts parts;
    parts.tapes = this;
    parts.cost = this;
    parts.jacobian_paths = this;
    return parts;
  }

  void directional_derivatives(double t, const double* y, const double* p, int n_dir, const double* const* s,
                               const int* index, double* const* out, Workspace& ws) const override;

  void rhs(double t, const double* y, const double* p, double* ydot, Workspace& ws) const override {
    Work& w = static_cast<Work&>(ws);
    if (const FusedRhs* fused = compiled_fused())
      if (fused->eval(t, y, p, ydot, w.fused_in, w.fused_out, w.fused_work)) return;
    derived().template eval<double>(t, y, p, ydot, w.d);
  }

  void jacobian(double t, const double* y, const double* p, double* J, Workspace& ws) const override {
    jacobian_dual(t, y, p, J, ws);
  }

  // JacobianPaths.
  void jacobian_dual(double t, const double* y, const double* p, double* J, Workspace& ws) const override {
    Work& w = static_cast<Work&>(ws);
    const int n = n_states();
    w.y.resize(n);
    w.ydot.resize(n);
    for (int c0 = 0; c0 < n; c0 += kJacobianChunk) {
      for (int i = 0; i < n; ++i) {
        w.y[i] = JacobianScalar(y[i]);
        if (i >= c0 && i < c0 + kJacobianChunk) w.y[i].d[i - c0] = 1.0;
      }
      derived().template eval<JacobianScalar>(t, w.y.data(), p, w.ydot.data(), w.j);
      for (int j = c0; j < std::min(n, c0 + kJacobianChunk); ++j)
        for (int i = 0; i < n; ++i) J[i + j * n] = w.ydot[i].d[j - c0];
    }
  }
  bool implicit_jacobian(double, const double*, const double*, double*, Workspace&) const override { return false; }

  // CostEstimate.
  double rhs_cost_ns() const override { return default_rhs_cost_ns(*this); }
  double jacobian_cost() const override {
    const double implicit = implicit_jacobian_cost();
    return std::isnan(implicit) ? dual_jacobian_cost() : std::min(implicit, dual_jacobian_cost());
  }
  double dual_jacobian_cost() const override { return default_dual_jacobian_cost(*this); }
  double implicit_jacobian_cost() const override { return std::numeric_limits<double>::quiet_NaN(); }

  // TapeSet (rhs_tapes: the dynamics tape unless the model says more).
  bool fusable() const override { return is_traceable<Derived>::value; }
  std::shared_ptr<const FusedRhs> trace_fused(double t, const double* y, const double* p) const override {
    if constexpr (is_traceable<Derived>::value) {
      return trace_fused_rhs(n_states(), n_params(), t, y, p,
                             [this](double tt, const Traced* yt, const Traced* pt, Traced* ydot) {
                               WorkT<Traced> w;
                               derived().template eval<Traced, Traced>(tt, yt, pt, ydot, w);
                             });
    } else {
      refuse_fusing();
    }
  }

 protected:
  const Derived& derived() const { return static_cast<const Derived&>(*this); }
  static WorkT<double>& work(Workspace& ws) { return static_cast<Work&>(ws).d; }
};

// Chunks of kJacobianChunk directions; the parameters enter as dual numbers, so the same
// template eval<S, P> that gives f and df/dy gives df/dp.
template <class Derived, template <class> class WorkT>
void ModelImpl<Derived, WorkT>::directional_derivatives(double t, const double* y, const double* p, int n_dir,
                                                        const double* const* s, const int* index,
                                                        double* const* out, Workspace& ws) const {
  Work& w = static_cast<Work&>(ws);
  const int n = n_states(), np = n_params();
  w.y.resize(n);
  w.ydot.resize(n);
  w.p.resize(np);
  for (int c0 = 0; c0 < n_dir; c0 += kJacobianChunk) {
    const int c1 = std::min(n_dir, c0 + kJacobianChunk);
    for (int i = 0; i < n; ++i) {
      w.y[i] = JacobianScalar(y[i]);
      for (int j = c0; j < c1; ++j) w.y[i].d[j - c0] = s[j][i];
    }
    for (int i = 0; i < np; ++i) w.p[i] = JacobianScalar(p[i]);
    for (int j = c0; j < c1; ++j)
      if (index[j] >= 0) w.p[index[j]].d[j - c0] = 1.0;
    derived().eval(t, w.y.data(), w.p.data(), w.ydot.data(), w.j);
    for (int j = c0; j < c1; ++j)
      for (int i = 0; i < n; ++i) out[j][i] = w.ydot[i].d[j - c0];
  }
}

}  // namespace nonholo
