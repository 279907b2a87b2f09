#include "nonholo/frame.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "nonholo/errors.hpp"

namespace nonholo {

namespace {

// Throws unless every output of `graph` depends on the coordinates and parameters only (not on
// the velocities or the time): a frame is a function of q.
void check_q_only(const ExprGraph& graph, int n, int n_inputs, const char* what) {
  std::vector<int> group(n_inputs, 0);
  for (int i = n; i <= 2 * n; ++i) group[i] = 1;
  auto deps = input_dependencies(graph, group);
  for (std::size_t o = 0; o < graph.outputs.size(); ++o)  // deps is per output
    if ((deps[o] >> 1) & 1u)
      throw InputError(std::string(what) + " must depend on the coordinates and parameters only (these depend on "
                       "the velocities or the time)");
}

// One tape of the outputs of `graph` and their derivatives in q^0 .. q^(n-1) by forward AD: for
// each block [first, first + count) of outputs, its values, then d/dq^0 of them, .., d/dq^(n-1).
Tape q_derivative_tape(const ExprGraph& graph, int n, const std::vector<std::pair<int, int>>& blocks) {
  GraphBuilder builder(graph.n_inputs);
  std::vector<int> identity(graph.n_inputs);
  for (int i = 0; i < graph.n_inputs; ++i) identity[i] = builder.input(i);
  std::vector<int> map = builder.append(graph, identity);
  std::vector<int> wrt(n);
  for (int l = 0; l < n; ++l) wrt[l] = l;
  auto deriv = differentiate(graph, map, wrt, builder);
  std::vector<int> outputs;
  for (auto [first, count] : blocks) {
    for (int i = first; i < first + count; ++i) outputs.push_back(map[graph.outputs[i]]);
    for (int l = 0; l < n; ++l)
      for (int i = first; i < first + count; ++i) {
        int d = deriv[l][graph.outputs[i]];
        outputs.push_back(d < 0 ? builder.constant(0.0) : d);
      }
  }
  return Tape(builder.finish(outputs));
}

// The outputs of `graph` and their tangent along the direction held in the velocity inputs
// (v^0 .. v^(n-1), which a frame's graph does not read): one forward sweep gives D_w of every
// output, w the velocity loaded there (Frame::evaluate_along).
std::pair<Tape, Tape> values_and_along_tapes(const ExprGraph& graph, int n) {
  GraphBuilder builder(graph.n_inputs);
  std::vector<int> identity(graph.n_inputs);
  for (int i = 0; i < graph.n_inputs; ++i) identity[i] = builder.input(i);
  std::vector<int> map = builder.append(graph, identity);
  std::vector<int> seed(graph.n_inputs, -1);
  for (int l = 0; l < n; ++l) seed[l] = identity[n + l];
  const std::vector<int> tangent = directional_derivative(graph, map, seed, builder);
  std::vector<int> outputs;
  outputs.reserve(graph.outputs.size());
  for (int o : graph.outputs) outputs.push_back(tangent[o] < 0 ? builder.constant(0.0) : tangent[o]);
  return {Tape(graph), Tape(builder.finish(outputs))};
}

}  // namespace

Frame::Frame(std::shared_ptr<const MechanicalSystem> system, ExprGraph graph) : system_(std::move(system)) {
  const int n = system_->n();
  if (graph.n_inputs != system_->n_inputs())
    throw InputError("the frame's expression graph has " + std::to_string(graph.n_inputs) + " inputs, expected " +
                     std::to_string(system_->n_inputs()));
  const int n_out = static_cast<int>(graph.outputs.size());
  if (n_out != n * n && n_out != n * n + n)
    throw InputError("a frame has n*n = " + std::to_string(n * n) + " entries (n*n + n with an offset), got " +
                     std::to_string(n_out));
  has_offset_ = n_out == n * n + n;
  if (system_->has_affine() && !has_offset_)
    throw InputError("anholonomic frames of a system with affine constraints A v = b need an offset w0(q) with "
                     "A w0 = b (q' = X_D v + w0)");
  check_q_only(graph, n, system_->n_inputs(), "the frame vectors and offset");
  // [X, dX/dq^0 .. dX/dq^(n-1)] and, with an offset, [w0, dw0/dq^0 .. dw0/dq^(n-1)] (FrameGeometry)
  std::vector<std::pair<int, int>> blocks{{0, n * n}};
  if (has_offset_) blocks.emplace_back(n * n, n);
  tape_ = q_derivative_tape(graph, n, blocks);
  std::tie(values_tape_, along_tape_) = values_and_along_tapes(graph, n);
}

std::shared_ptr<Frame> Frame::kane_speeds(std::shared_ptr<const MechanicalSystem> system, ExprGraph graph,
                                          bool offset) {
  const int n = system->n(), k = system->k();
  if (graph.n_inputs != system->n_inputs())
    throw InputError("the frame's expression graph has " + std::to_string(graph.n_inputs) + " inputs, expected " +
                     std::to_string(system->n_inputs()));
  const int n_out = static_cast<int>(graph.outputs.size());
  if (n_out != n * n + n + k * n + k)
    throw InputError("Kane's speeds frame has J (n*n), q0 (n), C (k*n) and f (k): " +
                     std::to_string(n * n + n + k * n + k) + " outputs, got " + std::to_string(n_out));
  if (system->has_affine() && !offset)
    throw InputError("Kane's speeds frame of a system with affine constraints A v = b needs its offset w0(q)");
  check_q_only(graph, n, system->n_inputs(), "the kinematic differential equations and velocity constraints of "
                                             "Kane's speeds frame");
  std::shared_ptr<Frame> frame(new Frame(std::move(system)));
  frame->kane_ = true;
  frame->has_offset_ = offset;
  frame->tape_ = q_derivative_tape(graph, n, {{0, n_out}});
  std::tie(frame->values_tape_, frame->along_tape_) = values_and_along_tapes(graph, n);
  return frame;
}

Frame::Frame(std::shared_ptr<const MechanicalSystem> system, std::vector<int> solved)
    : system_(std::move(system)), voronets_(true), solved_(std::move(solved)) {
  const int n = system_->n(), k = system_->k();
  if (system_->has_affine())
    throw InputError("anholonomic frames are implemented for linear constraints (A v = 0), not affine ones");
  if (static_cast<int>(solved_.size()) != k)
    throw InputError("solved must hold k = " + std::to_string(k) + " coordinate indices, got " +
                     std::to_string(solved_.size()));
  std::vector<bool> is_solved(n, false);
  for (std::size_t a = 0; a < solved_.size(); ++a) {
    const int i = solved_[a];
    if (i < 0 || i >= n || is_solved[i] || (a > 0 && i < solved_[a - 1]))
      throw InputError("solved must hold increasing, distinct coordinate indices in [0, " + std::to_string(n) + ")");
    is_solved[i] = true;
  }
  free_ = free_coordinates(solved_, n);

  // The constraint rows A(q) must not depend on v or t: the frame is a function of q.
  const ExprGraph& base = system_->base_graph();
  const int A0 = system_->layout().A;
  std::vector<int> group(system_->n_inputs(), 0);
  for (int i = n; i <= 2 * n; ++i) group[i] = 1;
  auto deps = input_dependencies(base, group);
  for (int o = A0; o < A0 + k * n; ++o)
    if ((deps[o] >> 1) & 1u)
      throw InputError("the Voronets frame needs constraint rows A(q) that depend on the coordinates and parameters "
                       "only (these depend on the velocities or the time)");

  // Two tapes: A, and A with dA/dq^l (forward AD of the constraint outputs only).
  std::vector<int> a_outputs(base.outputs.begin() + A0, base.outputs.begin() + A0 + k * n);
  Subgraph live = live_subgraph(base.nodes, a_outputs, base.n_inputs);
  std::tie(values_tape_, along_tape_) = values_and_along_tapes(live.graph, n);
  GraphBuilder builder(base.n_inputs);
  std::vector<int> identity(base.n_inputs);
  for (int i = 0; i < base.n_inputs; ++i) identity[i] = builder.input(i);
  std::vector<int> map = builder.append(live.graph, identity);
  std::vector<int> wrt(n);
  for (int l = 0; l < n; ++l) wrt[l] = l;
  auto deriv = differentiate(live.graph, map, wrt, builder);
  std::vector<int> outputs;
  outputs.reserve(static_cast<std::size_t>(1 + n) * k * n);
  for (int o : live.graph.outputs) outputs.push_back(map[o]);
  for (int l = 0; l < n; ++l)
    for (int o : live.graph.outputs) {
      int d = deriv[l][o];
      outputs.push_back(d < 0 ? builder.constant(0.0) : d);
    }
  tape_ = Tape(builder.finish(outputs));
}

// Columns of A (k x n) chosen by Gaussian elimination with complete pivoting: a regular block
// whenever A has full rank, the start of best_split when the given split is singular at q.
static std::vector<int> pivot_columns(MatX<double> A) {
  const int k = static_cast<int>(A.rows()), n = static_cast<int>(A.cols());
  std::vector<int> chosen;
  std::vector<bool> used(n, false);
  for (int i = 0; i < k; ++i) {
    int rb = -1, cb = -1;
    double big = 0.0;
    for (int r = i; r < k; ++r)
      for (int c = 0; c < n; ++c)
        if (!used[c] && std::abs(A(r, c)) > big) big = std::abs(A(r, c)), rb = r, cb = c;
    if (rb < 0) break;
    A.row(rb).swap(A.row(i));
    used[cb] = true;
    chosen.push_back(cb);
    for (int r = i + 1; r < k; ++r) A.row(r) -= (A(r, cb) / A(i, cb)) * A.row(i);
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

std::vector<int> maximal_volume_split(const MatX<double>& A, std::vector<int> start) {
  const int k = static_cast<int>(A.rows()), n = static_cast<int>(A.cols());
  FrameGeometry<double> f;
  auto evaluate = [&](std::vector<int> solved) {  // max |B_aj| of this split, or -1 where singular
    std::sort(solved.begin(), solved.end());
    f.free = free_coordinates(solved, n);
    f.solved = std::move(solved);
    return static_cast<int>(f.solved.size()) == k ? split_coefficients(A, f) : -1.0;
  };
  if (evaluate(std::move(start)) < 0.0 && evaluate(pivot_columns(A)) < 0.0) return {};  // else complete pivoting
  // each exchange multiplies |det A_s| by more than 1.01: finitely many (bounded for safety)
  for (int iteration = 0; iteration < 100 * n; ++iteration) {
    int a_best = -1, j_best = -1;
    double big = 1.01;
    for (int a = 0; a < k; ++a)
      for (int j = 0; j < n - k; ++j)
        if (std::abs(f.B(a, j)) > big) big = std::abs(f.B(a, j)), a_best = a, j_best = j;
    if (a_best < 0) break;
    std::vector<int> previous = f.solved, s = f.solved;
    s[a_best] = f.free[j_best];
    if (evaluate(std::move(s)) < 0.0) {  // cannot happen in exact arithmetic (|det| grows); keep the last
      evaluate(std::move(previous));
      break;
    }
  }
  return f.solved;
}

std::vector<int> Frame::best_split(const double* q, const double* p, std::vector<int> start) const {
  const int n = this->n(), k = system_->k();
  FrameGeometry<double> f;
  load_inputs(q, p, f);
  f.a_out.resize(values_tape_.n_outputs());
  values_tape_.eval(f.in.data(), f.a_out.data(), f.work);
  std::vector<int> solved = maximal_volume_split(RowMatMap<double>(f.a_out.data(), k, n), std::move(start));
  if (solved.empty()) singular(q);
  return solved;
}

}  // namespace nonholo
