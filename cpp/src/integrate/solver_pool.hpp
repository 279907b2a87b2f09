// CVODE instances reused across the runs of a thread (SolverPool), and how a run takes one and
// gives it back (PoolUse, SolverHandle).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "nonholo/integrator.hpp"
#include "nonholo/sparse_structure.hpp"
#include "nonholo/sundials/handles.hpp"
#include "nonholo/sundials/compat.hpp"

namespace nonholo::cvode {

// ---- CVODE instances reused across runs (a run's set-up cost) ----
// Making a CVODE instance (CVodeCreate and CVodeInit with their ~20 vectors, the Newton or
// fixed-point solver, the dense matrix and linear solver, the projection's memory) costs about
// as much as a short run of a small model. Each thread keeps the instances of its finished runs
// (SolverPool, one SUNContext per thread) and a run of the same kind (method, size, projection)
// takes one and re-initializes it (CVodeReInit) with every optional input set again, to CVODE's
// default where the run sets none: a reused instance integrates bit for bit like a fresh one
// (tests/test_solver_reuse.py). Runs with forward sensitivities make and free their own (the
// sensitivity memory is not re-initialized), and so does a run nested in another's callback
// on the same thread (it gets a context of its own).
constexpr int kAdamsMaxOrder = 12, kBdfMaxOrder = 5;  // CVODE's ADAMS_Q_MAX, BDF_Q_MAX
constexpr int kCvodeMaxNonlinIters = 3;               // NLS_MAXCOR
constexpr double kCvodeNonlinConvCoef = 0.1;          // CORTES

// One CVODE instance with what it was made with. Declaration order = reverse destruction
// order: CVODE's memory is freed first.
struct Solver {
  Method method = Method::Bdf;
  int n = 0;
  bool projection = false;  // BDF with CVODE's projection (CVodeSetProjFn)
  bool second_order = false;  // BDF's Newton systems solved in half the states (second_order_lu.hpp)
  // The sparse Newton matrix's pattern (a sparse model's CSC outer and inner indices), empty for
  // a dense one: compared by content, since another model may later live at the same address.
  std::vector<int> pattern_outer, pattern_inner;
  bool roots = false;       // CVodeRootInit was called with events
  bool reusable = true;     // false once sensitivities are attached
  sun::VectorPtr weights;   // CVODE's error weights, for the projection
  sun::MatrixPtr J;
  sun::LinearSolverPtr ls;
  sun::NonlinearSolverPtr nls;
  sun::CvodePtr mem;
};

class SolverPool {
 public:
  static SolverPool& of_this_thread();
  SUNContext context() const { return ctx_.get(); }
  // True for the outermost run on this thread (it may use the pool), false for a nested one.
  bool enter() { return active_++ == 0; }
  void leave() { --active_; }
  // An idle instance of this kind, or null.
  std::unique_ptr<Solver> take(Method method, int n, bool projection, bool second_order,
                               const JacobianStructure* pattern);
  // Keeps a finished run's instance (the kIdleSolvers most recent ones); its messages, if any,
  // go nowhere until the next run that takes it routes them to its own sink.
  void put(std::unique_ptr<Solver> solver);

 private:
  static constexpr std::size_t kIdleSolvers = 4;
  SolverPool();
  sun::ContextPtr ctx_;
  sun::MessageSink discarded_;
  int active_ = 0;
  std::vector<std::unique_ptr<Solver>> idle_;  // freed before the context
};

// Hands a run's instance back to its thread's pool (or frees it: no pool for nested runs).
struct SolverReturn {
  SolverPool* pool = nullptr;
  void operator()(Solver* solver) const {
    std::unique_ptr<Solver> owned(solver);
    if (pool) pool->put(std::move(owned));
  }
};
using SolverHandle = std::unique_ptr<Solver, SolverReturn>;
// The thread's pool for the outermost run, a context of its own for a nested one.
class PoolUse {
 public:
  PoolUse();
  ~PoolUse() { pool_.leave(); }
  PoolUse(const PoolUse&) = delete;
  PoolUse& operator=(const PoolUse&) = delete;
  SUNContext context() const { return pooled_ ? pool_.context() : own_ctx_.get(); }
  SolverPool* pool() const { return pooled_ ? &pool_ : nullptr; }

 private:
  SolverPool& pool_;
  bool pooled_;
  sun::ContextPtr own_ctx_;
};

}  // namespace nonholo::cvode
