#include "solver_pool.hpp"

#include <iterator>

#include "cvode_callbacks.hpp"

namespace nonholo::cvode {

SolverPool& SolverPool::of_this_thread() {
  thread_local SolverPool pool;
  return pool;
}

std::unique_ptr<Solver> SolverPool::take(Method method, int n, bool projection, bool second_order,
                                         const JacobianStructure* pattern) {
  static const std::vector<int> kNone;
  const std::vector<int>& outer = pattern ? pattern->outer : kNone;
  const std::vector<int>& inner = pattern ? pattern->inner : kNone;
  for (auto it = idle_.rbegin(); it != idle_.rend(); ++it) {
    Solver& s = **it;
    if (s.method == method && s.n == n && s.projection == projection && s.second_order == second_order &&
        s.pattern_outer == outer && s.pattern_inner == inner) {
      std::unique_ptr<Solver> found = std::move(*it);
      idle_.erase(std::next(it).base());
      return found;
    }
  }
  return nullptr;
}

void SolverPool::put(std::unique_ptr<Solver> solver) {
  if (!solver->reusable || !solver->mem) return;
  sun::capture_messages(ctx_.get(), solver->mem.get(), &discarded_);
  discarded_.messages.clear();
#if SUNDIALS_VERSION_MAJOR >= 7
  SUNContext_GetLastError(ctx_.get());  // reads and clears a failed run's error: the next starts clean
#endif
  idle_.push_back(std::move(solver));
  if (idle_.size() > kIdleSolvers) idle_.erase(idle_.begin());
}

SolverPool::SolverPool() {
  SUNContext ctx = nullptr;
  check(sun::create_context(&ctx), "SUNContext_Create");
  ctx_.reset(ctx);
}

PoolUse::PoolUse() : pool_(SolverPool::of_this_thread()), pooled_(pool_.enter()) {
  if (!pooled_) {
    SUNContext ctx = nullptr;
    check(sun::create_context(&ctx), "SUNContext_Create");
    own_ctx_.reset(ctx);
  }
}

}  // namespace nonholo::cvode
