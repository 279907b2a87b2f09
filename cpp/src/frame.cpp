#include "nonholo/frame.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "nonholo/errors.hpp"

namespace nonholo {

Frame::Frame(std::shared_ptr<const MechanicalSystem> system, ExprGraph graph) : system_(std::move(system)) {
  const int n = system_->n();
  if (graph.n_inputs != system_->n_inputs())
    throw InputError("the frame's expression graph has " + std::to_string(graph.n_inputs) + " inputs, expected " +
                     std::to_string(system_->n_inputs()));
  if (static_cast<int>(graph.outputs.size()) != n * n)
    throw InputError("a frame has n*n = " + std::to_string(n * n) + " entries, got " + std::to_string(graph.outputs.size()));
  if (system_->has_affine())
    throw InputError("anholonomic frames are implemented for linear constraints (A v = 0), not affine ones");
  GraphBuilder builder(graph.n_inputs);
  std::vector<int> identity(graph.n_inputs);
  for (int i = 0; i < graph.n_inputs; ++i) identity[i] = builder.input(i);
  std::vector<int> map = builder.append(graph, identity);
  std::vector<int> wrt(n);
  for (int l = 0; l < n; ++l) wrt[l] = l;
  auto deriv = differentiate(graph, map, wrt, builder);
  std::vector<int> outputs;
  outputs.reserve((1 + n) * n * n);
  for (int o : graph.outputs) outputs.push_back(map[o]);
  for (int l = 0; l < n; ++l)
    for (int o : graph.outputs) {
      int d = deriv[l][o];
      outputs.push_back(d < 0 ? builder.constant(0.0) : d);
    }
  tape_ = Tape(builder.finish(outputs));
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
  for (int i = 0; i < n; ++i)
    if (!is_solved[i]) free_.push_back(i);

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
  values_tape_ = Tape(live.graph);
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

namespace {

// B = -A_s^-1 A_r of the split `solved` (values), or false when A_s is singular.
bool split_coefficients(const MatX<double>& A, const std::vector<int>& solved, const std::vector<int>& free,
                        MatX<double>& B) {
  const int k = static_cast<int>(A.rows());
  Lu<double> lu;
  MatX<double> As(k, k);
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) As(a, b) = A(a, solved[b]);
  if (!lu.compute(As)) return false;
  B.resize(k, free.size());
  for (std::size_t j = 0; j < free.size(); ++j) {
    VecX<double> col = -A.col(free[j]);
    lu.solve_in_place(col);
    B.col(j) = col;
  }
  return true;
}

std::vector<int> complement(const std::vector<int>& solved, int n) {
  std::vector<int> free;
  for (int i = 0; i < n; ++i)
    if (!std::binary_search(solved.begin(), solved.end(), i)) free.push_back(i);
  return free;
}

}  // namespace

std::vector<int> maximal_volume_split(const MatX<double>& A, std::vector<int> start) {
  const int k = static_cast<int>(A.rows()), n = static_cast<int>(A.cols());
  MatX<double> B;
  std::sort(start.begin(), start.end());
  if (static_cast<int>(start.size()) != k || !split_coefficients(A, start, complement(start, n), B)) {
    start = pivot_columns(A);  // the start is singular: complete pivoting on A instead
    if (static_cast<int>(start.size()) != k || !split_coefficients(A, start, complement(start, n), B)) return {};
  }
  std::vector<int> solved = std::move(start), free = complement(solved, n);
  // each exchange multiplies |det A_s| by more than 1.01: finitely many (bounded for safety)
  for (int iteration = 0; iteration < 100 * n; ++iteration) {
    int a_best = -1, j_best = -1;
    double big = 1.01;
    for (int a = 0; a < k; ++a)
      for (int j = 0; j < n - k; ++j)
        if (std::abs(B(a, j)) > big) big = std::abs(B(a, j)), a_best = a, j_best = j;
    if (a_best < 0) break;
    std::vector<int> s = solved;
    s[a_best] = free[j_best];
    std::sort(s.begin(), s.end());
    std::vector<int> r = complement(s, n);
    if (!split_coefficients(A, s, r, B)) break;
    solved = std::move(s);
    free = std::move(r);
  }
  return solved;
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
