#include "nonholo/fused_rhs.hpp"
#include "nonholo/linalg.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace nonholo {

FusedRhs::FusedRhs(ExprGraph graph, int n_states, int n_params, std::vector<Guard> guards, int n_graph_nodes,
                   double build_seconds, std::string form)
    : tape_(std::move(graph)),
      n_states_(n_states),
      n_params_(n_params),
      guards_(std::move(guards)),
      n_graph_nodes_(n_graph_nodes),
      build_seconds_(build_seconds),
      form_(std::move(form)) {}

namespace {

bool all_bounded(const double* x, int count, double bound) {
  for (int i = 0; i < count; ++i)
    if (!(std::abs(x[i]) <= bound)) return false;  // NaN fails
  return true;
}

// Ldlt::factor_in_place's test (linalg.hpp): out = [diagonal (n), pivots (n)].
bool ldlt_passes(const double* out, int n, bool definite, bool own_scale) {
  double scale = 0.0;
  for (int i = 0; i < n; ++i) scale = std::max(scale, std::abs(out[i]));
  const double* pivot = out + n;
  for (int i = 0; i < n; ++i) {
    const double tiny = own_scale ? Ldlt<double>::pivot_floor(std::abs(out[i])) : 1e-13 * scale;
    if (definite ? !(pivot[i] > tiny) : !(std::abs(pivot[i]) > tiny)) return false;
  }
  return true;
}

// The traced row order of an LU is still a threshold pivoting order: out holds, column by column,
// the candidates LU(i, j), i >= j, the traced pivot first; each pivot nonzero, finite and at least
// kLuThreshold of every other candidate of its column (so the factors stay bounded; what the split
// itself may amplify, the traced code bounds separately).
bool lu_passes(const double* c, int n) {
  for (int j = 0; j < n; ++j) {
    const int count = n - j;
    const double pivot = std::abs(c[0]);
    if (!(pivot > 0.0) || !std::isfinite(pivot) || !all_bounded(c + 1, count - 1, pivot / FusedRhs::kLuThreshold))
      return false;
    c += count;
  }
  return true;
}

}  // namespace

bool FusedRhs::tests_pass(const double* out) const {
  for (const Guard& g : guards_) {
    const double* x = out + g.offset;
    switch (g.kind) {
      case FusedTrace::Test::kLdlt:
        if (!ldlt_passes(x, g.size, g.definite, g.own_scale)) return false;
        break;
      case FusedTrace::Test::kLu:
        if (!lu_passes(x, g.size)) return false;
        break;
      case FusedTrace::Test::kBound:
        if (!all_bounded(x, g.size, g.bound)) return false;
        break;
    }
  }
  return true;
}

bool FusedRhs::eval(double t, const double* y, const double* p, double* ydot, std::vector<double>& in,
                    std::vector<double>& out, std::vector<double>& work) const {
  in.resize(1 + n_states_ + n_params_);
  out.resize(tape_.n_outputs());
  in[0] = t;
  std::copy(y, y + n_states_, in.begin() + 1);
  std::copy(p, p + n_params_, in.begin() + 1 + n_states_);
  tape_.eval(in.data(), out.data(), work);
  if (!tests_pass(out.data())) return false;
  std::copy(out.begin(), out.begin() + n_states_, ydot);
  return true;
}

std::shared_ptr<const FusedRhs> trace_fused_rhs(
    int n_states, int n_params, double t, const double* y, const double* p,
    const std::function<void(double, const Traced*, const Traced*, Traced*)>& eval, std::string form) {
  const auto start = std::chrono::steady_clock::now();
  GraphBuilder builder(1 + n_states + n_params);
  FusedTrace trace;
  std::vector<int> outputs;
  std::vector<FusedRhs::Guard> guards;
  {
    TraceScope scope(builder);
    TraceBudget budget(kMaxFusedNodes);
    FusedTraceScope fused(trace);
    trace.time = Traced::input(0, t);
    std::vector<Traced> yt(n_states), pt(n_params), ydot(n_states);
    for (int i = 0; i < n_states; ++i) yt[i] = Traced::input(1 + i, y[i]);
    for (int i = 0; i < n_params; ++i) pt[i] = Traced::input(1 + n_states + i, p[i]);
    eval(t, yt.data(), pt.data(), ydot.data());
    for (const Traced& f : ydot) outputs.push_back(f.node());
    for (const FusedTrace::Test& g : trace.guards) {
      FusedRhs::Guard guard;
      guard.kind = g.kind;
      guard.size = g.size;
      guard.offset = static_cast<int>(outputs.size());
      guard.definite = g.definite;
      guard.own_scale = g.own_scale;
      guard.bound = g.bound;
      outputs.insert(outputs.end(), g.nodes.begin(), g.nodes.end());
      guards.push_back(guard);
    }
  }
  const int n_nodes = static_cast<int>(builder.nodes().size());
  ExprGraph graph = builder.finish(std::move(outputs));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return std::make_shared<const FusedRhs>(std::move(graph), n_states, n_params, std::move(guards), n_nodes, seconds,
                                          std::move(form));
}

}  // namespace nonholo
