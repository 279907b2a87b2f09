// A model's whole right-hand side as one tape: the system's tapes it replays and the
// factorizations and solves between them (linalg.hpp), recorded once with Traced scalars
// (scalar/traced.hpp) into one expression graph of (t, y, p), common subexpressions shared.
// Translated to C by model.compile(), it is one straight-line function with the system's sizes
// built in: no interpreter dispatch, no loops over run-time sizes and no hand-over between the
// tapes and the dense algebra, as CasADi's code generation gives a whole integrand.
//
// The graph has no branches. What the traced code decided on values, the fused right-hand side
// tests again at every evaluation on values it outputs beside y' (FusedRhs::Guard): each LDL^T
// pivot positive (or nonzero, for an indefinite metric) beyond 1e-13 of the largest diagonal
// entry, as Ldlt tests it; the row order a partial-pivoting LU chose at the trace still a
// threshold pivoting order (each pivot nonzero and at least kLuThreshold of the largest candidate
// in its column); values the trace bounded still bounded (and finite). Where a test fails,
// the model's own evaluation runs instead (and raises its error naming the point where it has
// one), so results never depend on the point of the trace. The operations are those of the
// traced code in the same order, so values equal that code's own up to the summation order of
// the few products left to Eigen (tests/test_fused_rhs.py).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nonholo/scalar/traced.hpp"
#include "nonholo/tape/tape.hpp"

namespace nonholo {

// The largest traced graph that is fused. Beyond it the fused kernel stops paying: on the chain
// N = 8 the order-3 reduced model (its CompiledSlip replayed) compiles for 17 s and runs no faster
// than its compiled tapes (one function far larger than the instruction cache), while every
// fused model of orders 0-2 measured (sleigh, disk, chains N = 4, 8) stays under this.
constexpr std::size_t kMaxFusedNodes = 30000;

class FusedRhs {
 public:
  // One test, on the outputs from `offset` (FusedTrace::Test, scalar/traced.hpp, for their layout).
  struct Guard {
    FusedTrace::Test::Kind kind = FusedTrace::Test::kLdlt;
    int size = 0;
    int offset = 0;
    bool definite = true;
    bool own_scale = false;
    double bound = 0.0;
  };
  // A row order a partial-pivoting LU chose at the trace stays in use while each pivot is at least
  // this fraction of the largest candidate of its column (threshold pivoting, as sparse LU codes
  // use to keep an order: element growth stays bounded).
  static constexpr double kLuThreshold = 0.1;

  FusedRhs(ExprGraph graph, int n_states, int n_params, std::vector<Guard> guards, int n_graph_nodes,
           double build_seconds, std::string form);

  const Tape& tape() const { return tape_; }
  int n_graph_nodes() const { return n_graph_nodes_; }
  double build_seconds() const { return build_seconds_; }
  int n_guards() const { return static_cast<int>(guards_.size()); }
  // What was traced: "eval" (the model's own evaluation) or "null-space" (ReducedModel::eval_nullspace).
  const std::string& form() const { return form_; }

  // y' at (t, y; p) into ydot; false (ydot untouched) when a test fails at this point.
  // in, out and work are the caller's scratch (no allocation once sized).
  bool eval(double t, const double* y, const double* p, double* ydot, std::vector<double>& in,
            std::vector<double>& out, std::vector<double>& work) const;

 private:
  bool tests_pass(const double* out) const;

  Tape tape_;
  int n_states_, n_params_;
  std::vector<Guard> guards_;
  int n_graph_nodes_;
  double build_seconds_;
  std::string form_;
};

// Traces `eval(t, y, p, ydot)` (a model's eval with Traced states and parameters and its own
// Traced workspace) at the point (t, y, p), which must be regular (the factorizations succeed).
// Throws Traced::TooLarge beyond kMaxFusedNodes nodes, and whatever the model throws at a point
// where it cannot be evaluated.
std::shared_ptr<const FusedRhs> trace_fused_rhs(
    int n_states, int n_params, double t, const double* y, const double* p,
    const std::function<void(double, const Traced*, const Traced*, Traced*)>& eval, std::string form = "eval");

}  // namespace nonholo
