// An anholonomic frame X(q) = [X_1 .. X_n] adapted to the constraint distribution D: the first
// m = n - k columns span D (Mestdag-Crampin 2010 section 3; notes/004 section 3.0). The frame
// arrives as an expression graph with the system's inputs [q, v, t, p] and outputs X (n*n,
// row-major: X(i, j) is component i of the vector X_j); its derivatives dX/dq^l come from
// forward-mode AD of the graph, compiled into one tape with X.
//
// The Voronets frame (Mestdag-Crampin section 3.2; notes/004 section 3.2) is also built
// numerically, with no symbolic inverse: with the coordinates split q = (r, s), s the k solved
// coordinates, the constraints A v = 0 read s' = B(q) r' with B = -A_s^-1 A_r, and
//   X = [X_D | X_C],  X_D = d/dr + B d/ds,  X_C = d/ds.
// Each evaluation reads A and dA/dq^l from a tape of the system's constraint rows (built from
// its expression graph by forward AD), factors A_s by LU and gets the derivatives by implicit
// differentiation of A_s B = -A_r:  dB/dq^l = -A_s^-1 (dA_r/dq^l + dA_s/dq^l B).
//
// Kane's speeds frame (System.from_kanes_method) is built numerically the same way, from its
// unsolved parts: the kinematic differential equations q' = J(q) u + q0(q) and the velocity
// constraints C(q) u + f(q) = 0 in the speeds u = (u_ind, u_dep), C = [C_ind | C_dep] (k x m,
// k x k). Each evaluation reads J, q0, C, f and their derivatives dJ/dq^l .. from a tape, factors
// C_dep by LU with partial pivoting and solves u_dep = Bk u_ind + e,
//   Bk = -C_dep^-1 C_ind,  e = -C_dep^-1 f,
//   X = J E,  E = [[I, 0], [Bk, I]],  w0 = J [0; e] + q0,
// with the derivatives by implicit differentiation of C_dep Bk = -C_ind and C_dep e = -f:
//   dBk/dq^l = -C_dep^-1 (dC_ind + dC_dep Bk),  de/dq^l = -C_dep^-1 (df + dC_dep e).
// No symbolic inverse, so no 0/0 where a symbolic solve divides by a factor that vanishes (SymPy's
// bicycle upright): the frame is regular wherever C_dep is.
//
// The Hamel right-hand side needs the frame's derivatives only along the velocity w = X_D v + w0:
// D_w X = sum_l dX/dq^l w^l (and D_w w0). Frame::evaluate_along gets them from the values and one
// forward sweep of the same expressions along w (the direction loaded into the velocity inputs,
// which a frame does not read), with the implicit differentiation above taken along w once:
//   D_w Bk = -C_dep^-1 (D_w C_ind + D_w C_dep Bk),  D_w B = -A_s^-1 (D_w A_r + D_w A_s B),
// instead of n sweeps and n solves (Frame::evaluate, which the vakonomic curvature term needs).
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "nonholo/errors.hpp"
#include "nonholo/linalg.hpp"
#include "nonholo/mechanical_system.hpp"

namespace nonholo {

template <class S>
struct FrameGeometry {
  int n = 0;
  std::vector<S> in, out, work;
  RowMatMap<S> X() const { return {out.data(), n, n}; }
  RowMatMap<S> dX(int l) const { return {out.data() + (1 + l) * n * n, n, n}; }  // dX/dq^l
  // The offset w0(q) of a frame of affine constraints (Frame::has_offset) and dw0/dq^l.
  Eigen::Map<const VecX<S>> w0() const { return {out.data() + (1 + n) * n * n, n}; }
  Eigen::Map<const VecX<S>> dw0(int l) const { return {out.data() + (1 + n) * n * n + (1 + l) * n, n}; }
  // The velocity w = X_D v + w0 and D_w X, D_w w0 (Frame::evaluate_along, Frame::contract_along);
  // `tangent` holds the along tape's outputs.
  VecX<S> w, Dw0;
  RowMatX<S> DwX;
  std::vector<S> tangent;
  // Voronets frame: A and dA/dq^l (constraint tape), A_s, its LU, B (k x m), scratch. Kane's
  // speeds frame: [J, q0, C, f] and their q-derivatives, C_dep, its LU, Bk (k x m), e (k), scratch.
  std::vector<S> a_out;
  MatX<S> As, B, dB;
  VecX<S> col, e;
  Lu<S> lu;
  // The split this evaluation uses (Voronets frame; the frame's own until a run re-splits it,
  // see Frame::best_split), and the largest max|B_aj| of the evaluations since `growth` was
  // last reset (the integrator's watch of the frame, models/frame_watch.hpp).
  std::vector<int> solved, free;
  double growth = 0.0;
  VecX<S> velocity;  // X_D w for events and re-splits (models/frame_watch.hpp)
};

// The coordinates 0..n-1 not in `solved` (both increasing): the free ones of a split.
inline std::vector<int> free_coordinates(const std::vector<int>& solved, int n) {
  std::vector<int> free;
  for (int i = 0, a = 0; i < n; ++i) {
    if (a < static_cast<int>(solved.size()) && solved[a] == i)
      ++a;
    else
      free.push_back(i);
  }
  return free;
}

// The split f.solved / f.free of the constraint rows A (k x n, any matrix expression): A_s
// factored into f.lu and B = -A_s^-1 A_r into f.B (k x m). Returns max |B_aj| (values), or -1
// when A_s is singular. Shared by the Voronets frame, the split search and the fused null-space
// right-hand side (models/reduced.hpp).
template <class S, class MatA>
double split_coefficients(const MatA& A, FrameGeometry<S>& f) {
  const int k = static_cast<int>(f.solved.size()), m = static_cast<int>(f.free.size());
  f.As.resize(k, k);
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) f.As(a, b) = A(a, f.solved[b]);
  if (!f.lu.compute(f.As)) return -1.0;
  f.B.resize(k, m);
  f.col.resize(k);
  double growth = 0.0;
  for (int j = 0; j < m; ++j) {
    for (int a = 0; a < k; ++a) f.col(a) = -A(a, f.free[j]);
    f.lu.solve_in_place(f.col);
    f.B.col(j) = f.col;
    for (int a = 0; a < k; ++a) growth = std::max(growth, std::abs(value(f.col(a))));
  }
  return growth;
}

// The split of maximal volume of the constraint rows A (k x n): the k solved columns for which
// every |B_aj| <= 1.01, B = -A_s^-1 A_r (each exchange from `start`, or from complete pivoting on
// A where `start` is singular, multiplies |det A_s| by more than 1.01). Empty when A has not full
// rank. Used by Frame::best_split and the fused null-space right-hand side (models/reduced.hpp).
std::vector<int> maximal_volume_split(const MatX<double>& A, std::vector<int> start = {});

// The parts of a block of Kane's tape at `data`: J (n x n), q0 (n), C (k x n), f (k).
template <class S>
struct KaneBlock {
  RowMatMap<S> J;
  Eigen::Map<const VecX<S>> q0;
  RowMatMap<S> C;
  Eigen::Map<const VecX<S>> f;
  KaneBlock(const S* data, int n, int k)
      : J(data, n, n), q0(data + n * n, n), C(data + n * n + n, k, n), f(data + n * n + n + k * n, k) {}
};

class Frame {
 public:
  // A frame given by expressions: `graph` has the system's inputs and the n*n outputs X
  // (row-major), and optionally n more: an offset w0(q) for affine constraints A v = b, with
  // A X_D = 0 and A w0 = b, so that the velocities on the constraint set are q' = X_D v + w0
  // (Kane's speeds with affine velocity constraints or kinematic equations). Both depend on q
  // and the parameters only.
  Frame(std::shared_ptr<const MechanicalSystem> system, ExprGraph graph);
  // The Voronets frame of the split with the k coordinates `solved` (indices, increasing)
  // solved for, evaluated numerically (see the top of this file). The constraint rows must
  // depend on q and the parameters only.
  Frame(std::shared_ptr<const MechanicalSystem> system, std::vector<int> solved);
  // Kane's speeds frame (see the top of this file): `graph` has the system's inputs and the
  // outputs J (n*n, row-major, J(i, j) = dq'^i/du_j), q0 (n), C (k*n, row-major, C(a, j) the
  // coefficient of u_j in constraint a) and f (k), all functions of q and the parameters, the
  // speeds u ordered (u_ind, u_dep). `offset`: the frame has w0 (false only where q0 = 0 and f = 0).
  static std::shared_ptr<Frame> kane_speeds(std::shared_ptr<const MechanicalSystem> system, ExprGraph graph,
                                            bool offset);

  const MechanicalSystem& system() const { return *system_; }
  const std::shared_ptr<const MechanicalSystem>& system_ptr() const { return system_; }
  int n() const { return system_->n(); }
  int rank() const { return system_->n() - system_->k(); }  // m = dim D
  // The frame's expressions (X and w0; [J, q0, C, f] for Kane's speeds; A for the Voronets frame)
  // with their derivatives dq^l (tape), alone (values_tape) and their tangent along the direction
  // in the velocity inputs (along_tape).
  const Tape& tape() const { return tape_; }
  const Tape& values_tape() const { return values_tape_; }
  const Tape& along_tape() const { return along_tape_; }
  // The tapes by name, for model.compile(): Frame, FrameValues and FrameAlong; nullptr for another.
  std::vector<TapeName> tape_names() const { return {TapeName::Frame, TapeName::FrameValues, TapeName::FrameAlong}; }
  const Tape* tape_named(TapeName name) const {
    if (name == TapeName::Frame) return &tape_;
    if (name == TapeName::FrameValues) return &values_tape_;
    if (name == TapeName::FrameAlong) return &along_tape_;
    return nullptr;
  }
  bool voronets() const { return voronets_; }
  bool kane() const { return kane_; }  // Kane's speeds frame
  bool has_offset() const { return has_offset_; }  // q' = X_D v + w0(q) (see the constructor)
  const std::vector<int>& solved() const { return solved_; }  // s (Voronets frame)
  const std::vector<int>& free() const { return free_; }      // r (Voronets frame)

  // Voronets frame only: a split of maximal volume at q, by exchanges from `start` (Goreinov-
  // Tyrtyshnikov's maxvol): while some |B_aj| > 1 + 1e-2, the solved coordinate s_a and the free
  // r_j trade places (|det A_s| grows by the factor |B_aj|). At the end every |B_aj| <= 1.01, so
  // X_D = d/dr + B d/ds is as well conditioned as a Voronets frame can be at q. Indices
  // increasing; throws ModelError when A(q) has no regular k x k block.
  std::vector<int> best_split(const double* q, const double* p, std::vector<int> start) const;
  // Sets the split f evaluates with (`solved` increasing; the free coordinates are the others).
  template <class S>
  void set_split(const std::vector<int>& solved, FrameGeometry<S>& f) const {
    f.solved = solved;
    f.free = free_coordinates(solved, n());
  }

  // X and dX/dq^l at q into f.out (layout of FrameGeometry).
  template <class S, class P>
  void evaluate(const S* q, const P* p, FrameGeometry<S>& f) const {
    load_inputs(q, p, f);
    if (kane_) {
      f.a_out.resize(tape_.n_outputs());
      tape_.eval(f.in.data(), f.a_out.data(), f.work);
      fill_kane(q, f);
      return;
    }
    if (!voronets_) {
      f.out.resize(tape_.n_outputs());
      tape_.eval(f.in.data(), f.out.data(), f.work);
      return;
    }
    voronets_B(q, f, true);
    fill_voronets(f);
  }

  // After evaluate: the velocity w = X_D v + w0 and D_w X, D_w w0 into f.w, f.DwX, f.Dw0.
  template <class S>
  void contract_along(const S* v, FrameGeometry<S>& f) const {
    const int n = this->n(), m = rank();
    f.w.noalias() = f.X().leftCols(m) * Eigen::Map<const VecX<S>>(v, m);
    if (has_offset_) f.w += f.w0();
    f.DwX.setZero(n, n);
    f.Dw0.setZero(n);
    for (int l = 0; l < n; ++l) {
      f.DwX += f.dX(l) * f.w(l);
      if (has_offset_) f.Dw0 += f.dw0(l) * f.w(l);
    }
  }

  // X and w0 at q into f.out (their blocks of the layout of FrameGeometry; dX/dq^l and dw0/dq^l
  // are left unset), the velocity w = X_D v + w0 into f.w and its derivatives along w, D_w X into
  // f.DwX and D_w w0 into f.Dw0 (zero without an offset): one sweep of the values and one along w
  // (see the top of this file), what contract_along gives after evaluate at a fraction of its cost.
  template <class S, class P>
  void evaluate_along(const S* q, const S* v, const P* p, FrameGeometry<S>& f) const {
    const int n = this->n(), m = rank();
    f.out.resize(static_cast<std::size_t>(1 + n) * n * n + (has_offset_ ? (1 + n) * n : 0));
    if (voronets_) {
      load_inputs(q, p, f);
      voronets_B(q, f, false);
      voronets_X(f);
    } else {
      evaluate_values(q, p, f);
      if (kane_) {
        kane_values(q, f);
      } else {
        std::copy(f.a_out.begin(), f.a_out.begin() + n * n, f.out.begin());
        if (has_offset_) std::copy(f.a_out.begin() + n * n, f.a_out.end(), f.out.begin() + (1 + n) * n * n);
      }
    }
    f.w.noalias() = f.X().leftCols(m) * Eigen::Map<const VecX<S>>(v, m);
    if (has_offset_) f.w += f.w0();
    for (int i = 0; i < n; ++i) f.in[n + i] = f.w(i);
    f.tangent.resize(along_tape_.n_outputs());
    along_tape_.eval(f.in.data(), f.tangent.data(), f.work);
    f.DwX.setZero(n, n);
    f.Dw0.setZero(n);
    if (kane_) {
      kane_derivative(KaneBlock<S>(f.tangent.data(), n, system_->k()), f.DwX.data(), f.Dw0.data(), f);
    } else if (voronets_) {
      voronets_along(f);
    } else {
      f.DwX = RowMatMap<S>(f.tangent.data(), n, n);
      if (has_offset_) f.Dw0 = Eigen::Map<const VecX<S>>(f.tangent.data() + n * n, n);
    }
  }

  // The frame's expressions at q into f.a_out, no derivatives: [J, q0, C, f] for Kane's speeds (read
  // them with KaneBlock), A for the Voronets frame, X and w0 for a frame given by expressions.
  template <class S, class P>
  void evaluate_values(const S* q, const P* p, FrameGeometry<S>& f) const {
    load_inputs(q, p, f);
    f.a_out.resize(values_tape_.n_outputs());
    values_tape_.eval(f.in.data(), f.a_out.data(), f.work);
  }

  // Voronets frame only: B(q) = -A_s^-1 A_r into f.B (k x m), with no derivatives; X_D w is
  // then (w on r, B w on s) and [X^-1 y]_D = y_r.
  template <class S, class P>
  void evaluate_B(const S* q, const P* p, FrameGeometry<S>& f) const {
    load_inputs(q, p, f);
    voronets_B(q, f, false);
  }

 private:
  explicit Frame(std::shared_ptr<const MechanicalSystem> system) : system_(std::move(system)) {}

  template <class S, class P>
  void load_inputs(const S* q, const P* p, FrameGeometry<S>& f) const {
    const int n = this->n();
    f.n = n;
    f.in.assign(system_->n_inputs(), S(0.0));
    for (int i = 0; i < n; ++i) f.in[i] = q[i];
    for (int i = 0; i < system_->n_params(); ++i) f.in[2 * n + 1 + i] = S(p[i]);
  }

  // A (and dA/dq^l when `derivatives`) from the constraint tape, A_s factored, B solved.
  template <class S>
  void voronets_B(const S* q, FrameGeometry<S>& f, bool derivatives) const {
    const int n = this->n(), k = system_->k(), m = n - k;
    const Tape& tape = derivatives ? tape_ : values_tape_;
    if (static_cast<int>(f.free.size()) != m) {  // a new workspace: the frame's own split
      f.solved = solved_;
      f.free = free_;
    }
    f.a_out.resize(tape.n_outputs());
    tape.eval(f.in.data(), f.a_out.data(), f.work);
    const double growth = split_coefficients(RowMatMap<S>(f.a_out.data(), k, n), f);
    if (growth < 0.0) singular(q);
    f.growth = std::max(f.growth, growth);
  }

  // X from B into the first block of f.out: X_D = d/dr + B d/ds, X_C = d/ds.
  template <class S>
  void voronets_X(FrameGeometry<S>& f) const {
    const int n = this->n(), k = system_->k(), m = n - k;
    std::fill(f.out.begin(), f.out.begin() + n * n, S(0.0));
    const std::vector<int>&r = f.free, &s = f.solved;
    for (int j = 0; j < m; ++j) {
      f.out[r[j] * n + j] = S(1.0);
      for (int a = 0; a < k; ++a) f.out[s[a] * n + j] = f.B(a, j);
    }
    for (int a = 0; a < k; ++a) f.out[s[a] * n + m + a] = S(1.0);
  }

  // -A_s^-1 (dA_r + dA_s B), column j, into f.col: dB along the derivative dA of A (k x n).
  template <class S>
  void voronets_dB(const RowMatMap<S>& dA, int j, FrameGeometry<S>& f) const {
    const int k = system_->k();
    for (int a = 0; a < k; ++a) {
      S sum = dA(a, f.free[j]);
      for (int b = 0; b < k; ++b) sum += dA(a, f.solved[b]) * f.B(b, j);
      f.col(a) = -sum;
    }
    f.lu.solve_in_place(f.col);
  }

  // X and dX/dq^l from B and dA/dq^l: dB/dq^l = -A_s^-1 (dA_r/dq^l + dA_s/dq^l B).
  template <class S>
  void fill_voronets(FrameGeometry<S>& f) const {
    const int n = this->n(), k = system_->k(), m = n - k;
    f.out.assign(static_cast<std::size_t>(1 + n) * n * n, S(0.0));
    voronets_X(f);
    for (int l = 0; l < n; ++l) {
      RowMatMap<S> dA(f.a_out.data() + (1 + l) * k * n, k, n);
      for (int j = 0; j < m; ++j) {
        voronets_dB(dA, j, f);
        for (int a = 0; a < k; ++a) f.out[static_cast<std::size_t>(1 + l) * n * n + f.solved[a] * n + j] = f.col(a);
      }
    }
  }

  // D_w X from D_w A (f.tangent): D_w B on the solved rows of X_D, zero elsewhere.
  template <class S>
  void voronets_along(FrameGeometry<S>& f) const {
    const int n = this->n(), k = system_->k(), m = n - k;
    RowMatMap<S> dA(f.tangent.data(), k, n);
    for (int j = 0; j < m; ++j) {
      voronets_dB(dA, j, f);
      for (int a = 0; a < k; ++a) f.DwX(f.solved[a], j) = f.col(a);
    }
  }

  // Kane's speeds frame: X, w0 and their q-derivatives into f.out from [J, q0, C, f] and their
  // derivatives in f.a_out (blocks of kane_block() values: the values, then d/dq^0 .. d/dq^(n-1)).
  // X and w0 into the first blocks of f.out (f.out sized), from the values [J, q0, C, f] at the
  // start of f.a_out: Bk = -C_dep^-1 C_ind, e = -C_dep^-1 f (pivoted LU of C_dep), X = J E,
  // w0 = J_dep e + q0 (J_dep = the last k columns of J).
  template <class S>
  void kane_values(const S* q, FrameGeometry<S>& f) const {
    const int n = this->n(), k = system_->k(), m = n - k;
    const KaneBlock<S> v(f.a_out.data(), n, k);
    Eigen::Map<RowMatX<S>> X(f.out.data(), n, n);
    f.As = v.C.rightCols(k);
    if (!f.lu.compute(f.As)) kane_singular(q);
    f.B.resize(k, m);
    f.col.resize(k);
    for (int j = 0; j < m; ++j) {
      f.col = -v.C.col(j);
      f.lu.solve_in_place(f.col);
      f.B.col(j) = f.col;
    }
    f.e = -v.f;
    f.lu.solve_in_place(f.e);
    X.leftCols(m) = v.J.leftCols(m);
    X.leftCols(m).noalias() += v.J.rightCols(k) * f.B;
    X.rightCols(k) = v.J.rightCols(k);
    if (has_offset_) {
      Eigen::Map<VecX<S>> w0(f.out.data() + (1 + n) * n * n, n);
      w0 = v.q0;
      w0.noalias() += v.J.rightCols(k) * f.e;
    }
  }

  // The derivative of X and w0 along a derivative d of [J, q0, C, f] (d/dq^l, or D_w) into the n x n
  // row-major dX and, with an offset, dw0 (from the values at the start of f.a_out and f.B, f.e):
  //   dBk = -C_dep^-1 (dC_ind + dC_dep Bk),  de = -C_dep^-1 (df + dC_dep e),
  //   dX = dJ E + J_dep [dBk | 0],  dw0 = dq0 + dJ_dep e + J_dep de.
  template <class S>
  void kane_derivative(const KaneBlock<S>& d, S* dX, S* dw0, FrameGeometry<S>& f) const {
    const int n = this->n(), k = system_->k(), m = n - k;
    const KaneBlock<S> v(f.a_out.data(), n, k);
    Eigen::Map<RowMatX<S>> X(dX, n, n);
    f.dB.resize(k, m);
    for (int j = 0; j < m; ++j) {
      f.col = -d.C.col(j);
      f.col.noalias() -= d.C.rightCols(k) * f.B.col(j);
      f.lu.solve_in_place(f.col);
      f.dB.col(j) = f.col;
    }
    X.leftCols(m) = d.J.leftCols(m);
    X.leftCols(m).noalias() += d.J.rightCols(k) * f.B;
    X.leftCols(m).noalias() += v.J.rightCols(k) * f.dB;
    X.rightCols(k) = d.J.rightCols(k);
    if (has_offset_) {
      Eigen::Map<VecX<S>> w0(dw0, n);
      f.col = -d.f;
      f.col.noalias() -= d.C.rightCols(k) * f.e;
      f.lu.solve_in_place(f.col);
      w0 = d.q0;
      w0.noalias() += d.J.rightCols(k) * f.e;
      w0.noalias() += v.J.rightCols(k) * f.col;
    }
  }

  // X, w0 and their q-derivatives into f.out from [J, q0, C, f] and their derivatives in f.a_out
  // (blocks of kane_block() values: the values, then d/dq^0 .. d/dq^(n-1)).
  template <class S>
  void fill_kane(const S* q, FrameGeometry<S>& f) const {
    const int n = this->n(), k = system_->k();
    const std::size_t block = kane_block(), nn = static_cast<std::size_t>(n) * n;
    f.out.assign((1 + n) * nn + (has_offset_ ? (1 + n) * n : 0), S(0.0));
    kane_values(q, f);
    for (int l = 0; l < n; ++l)
      kane_derivative(KaneBlock<S>(f.a_out.data() + (1 + l) * block, n, k), f.out.data() + (1 + l) * nn,
                      has_offset_ ? f.out.data() + (1 + n) * nn + (1 + l) * n : nullptr, f);
  }
  // The values of one block of Kane's tape: J, q0, C, f.
  std::size_t kane_block() const {
    const std::size_t n = this->n(), k = system_->k();
    return n * n + n + k * n + k;
  }

  template <class S>
  [[noreturn]] void kane_singular(const S* q) const {
    std::string point;
    for (int i = 0; i < n(); ++i) point += (i ? ", " : "") + std::to_string(value(q[i]));
    throw ModelError("Kane's dependent speeds cannot be solved from the velocity constraints at q = (" + point +
                     "): their coefficients C_dep (of u_dependent) are singular there");
  }

  template <class S>
  [[noreturn]] void singular(const S* q) const {
    std::string point;
    for (int i = 0; i < n(); ++i) point += (i ? ", " : "") + std::to_string(value(q[i]));
    throw ModelError("the constraints cannot be solved for the coordinates of the Voronets frame (their block A_s "
                     "of A is singular) at q = (" + point + "), with these parameters: choose the solved "
                     "coordinates where A_s is regular (nonholo.frames.AnholonomicFrame(system, solved=[...])), or "
                     "take the coordinate form (velocities='coordinates' for a reduced model, "
                     "system.nonholonomic() for the Hamel model)");
  }

  std::shared_ptr<const MechanicalSystem> system_;
  Tape tape_;
  bool voronets_ = false;
  bool kane_ = false;
  bool has_offset_ = false;
  Tape values_tape_, along_tape_;  // the frame's expressions alone, and their tangent along w
  std::vector<int> solved_, free_;
};

}  // namespace nonholo
