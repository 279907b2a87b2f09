// The slow-manifold coefficients h^(1..K) compiled once into one tape of (q, u, t, p).
//
// The expansion of slow_manifold.hpp (the recursion of Gzenda-Chhabra section 3.8 carried out in
// (eps, t) Taylor arithmetic through the system's tape) is run once with Traced scalars
// (scalar/traced.hpp): every arithmetic operation becomes a node of an expression graph whose
// inputs are q, u, t and the parameters. Hash-consing shares the common subexpressions (the
// 2K sweeps of the expansion recompute converged coefficients, which map onto existing nodes),
// constant folding drops the structural zeros, and the result is compiled into a Tape. An
// evaluation of h^(1..K) is then one pass over that tape, with no series arithmetic, no
// factorization bookkeeping and no heap allocation.
//
// The trace is taken at a point where G, M and mu are regular (it records no pivoting: the
// factorizations of linalg.hpp do not pivot), and is valid wherever they are. Graphs grow with
// the order (polynomially, as the number of series coefficient products); beyond
// kMaxCompiledSlipOrder (measured: benchmarks/slow_manifold_cost.py) the reduced model keeps the
// Taylor-mode path, whose build cost is nil.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <vector>

#include "nonholo/mechanical_system.hpp"
#include "nonholo/scalar/traced.hpp"
#include "nonholo/slow_manifold.hpp"

namespace nonholo {

// When the graph is built (README, "Reduced models", measured by
// benchmarks/slow_manifold_cost.py): for 2 <= K <= kMaxCompiledSlipOrder, and only while the
// trace stays under kMaxCompiledSlipNodes nodes (a few seconds of build at most). Order 1 needs
// no series: the reduced model evaluates it from the split projection tape (models/reduced.hpp),
// cheaper than a tape of h^(1), which repeats the geometry. Higher orders or larger graphs
// (1.3 million nodes and 15 s of build for K = 16 on the sleigh, 2.3 million and 26 s for K = 8
// on the chain with n = 10) pay only after thousands of evaluations, so the Taylor-mode path
// (h^(1..16) of the sleigh or the disk in 10-20 ms) is cheaper over a typical run.
constexpr int kMaxCompiledSlipOrder = 8;
constexpr std::size_t kMaxCompiledSlipNodes = 400000;

class CompiledSlip {
 public:
  // Traces h^(1..order) of `system` at (t, q, u, p) (u on the constraint set); throws
  // InputError when the graph would exceed max_nodes nodes.
  CompiledSlip(std::shared_ptr<const MechanicalSystem> system, int order, double t, const double* q,
               const double* u, const double* p, std::size_t max_nodes = kMaxCompiledSlipNodes);

  int order() const { return order_; }
  const MechanicalSystem& system() const { return *system_; }
  const Tape& tape() const { return tape_; }
  double build_seconds() const { return build_seconds_; }
  int n_graph_nodes() const { return n_graph_nodes_; }

  // coeffs (n x order) = [h^(1) .. h^(K)] at (t, q, u); in/work are the caller's scratch.
  template <class S, class Par>
  void evaluate(const S& t, const S* q, const S* u, const Par* p, std::vector<S>& in, std::vector<S>& out,
                std::vector<S>& work) const {
    in.resize(system_->n_inputs());
    out.resize(tape_.n_outputs());
    system_->pack_inputs(t, q, u, p, in.data());
    tape_.eval(in.data(), out.data(), work);
  }

 private:
  std::shared_ptr<const MechanicalSystem> system_;
  int order_;
  Tape tape_;
  double build_seconds_ = 0.0;
  int n_graph_nodes_ = 0;
};

template <class S>
struct SlipWork {
  SlowManifoldWork<S> slow;
  MatX<S> coeffs;
  std::vector<S> in, out, work;
};

// The truncated slip s = sum_{k<=K} eps^k h^(k)(t, q, u) (Gzenda-Chhabra eq. (66)), the one
// place the velocity series v = u + s is summed (reduced models, models/reduced.hpp, and their
// trajectories, trajectory.cpp). h^(1..K) from `compiled` when given and the parameters are
// plain numbers (or traced with the states, when a fused right-hand side replays the tape:
// fused_rhs.hpp), else by Taylor mode (slip_coefficients); t a number or of type S. s is resized
// to n; no allocation once w and s are sized.
template <class S, class Time, class P, class Out>
void truncated_slip(const MechanicalSystem& sys, const CompiledSlip* compiled, int order, const Time& t, const S* q,
                    const S* u, const P* p, const P& eps, SlipWork<S>& w, Out& s) {
  const int n = sys.n();
  s.setZero(n);
  if (order == 0) return;
  if constexpr (std::is_same_v<P, double> || (std::is_same_v<P, Traced> && std::is_same_v<S, Traced>)) {
    if (compiled != nullptr) {
      compiled->evaluate(S(t), q, u, p, w.in, w.out, w.work);
      P e(1.0);
      for (int k = 0; k < order; ++k) {
        e *= eps;
        for (int i = 0; i < n; ++i) s(i) += e * w.out[k * n + i];
      }
      return;
    }
  }
  slip_coefficients(sys, t, q, u, p, order, w.slow, w.coeffs);
  P e(1.0);
  for (int k = 0; k < order; ++k) {
    e *= eps;
    s += e * w.coeffs.col(k);
  }
}

}  // namespace nonholo
