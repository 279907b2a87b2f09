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
  // For a frame given by expressions, X and dX/dq; for the Voronets frame, A and dA/dq.
  const Tape& tape() const { return tape_; }
  const Tape& values_tape() const { return values_tape_; }  // Voronets frame: A only
  // The tapes by name, for model.compile(): Frame (tape()) and, for the Voronets frame,
  // FrameValues (values_tape()); nullptr for another name.
  std::vector<TapeName> tape_names() const {
    if (voronets_) return {TapeName::Frame, TapeName::FrameValues};
    return {TapeName::Frame};
  }
  const Tape* tape_named(TapeName name) const {
    if (name == TapeName::Frame) return &tape_;
    if (name == TapeName::FrameValues && voronets_) return &values_tape_;
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

  // X and dX/dq^l from B and dA/dq^l: dB/dq^l = -A_s^-1 (dA_r/dq^l + dA_s/dq^l B).
  template <class S>
  void fill_voronets(FrameGeometry<S>& f) const {
    const int n = this->n(), k = system_->k(), m = n - k;
    f.out.assign(static_cast<std::size_t>(1 + n) * n * n, S(0.0));
    auto X = [&](int l, int i, int j) -> S& { return f.out[static_cast<std::size_t>(1 + l) * n * n + i * n + j]; };
    const std::vector<int>&r = f.free, &s = f.solved;
    for (int j = 0; j < m; ++j) {
      X(-1, r[j], j) = S(1.0);
      for (int a = 0; a < k; ++a) X(-1, s[a], j) = f.B(a, j);
    }
    for (int a = 0; a < k; ++a) X(-1, s[a], m + a) = S(1.0);
    for (int l = 0; l < n; ++l) {
      RowMatMap<S> dA(f.a_out.data() + (1 + l) * k * n, k, n);
      for (int j = 0; j < m; ++j) {
        for (int a = 0; a < k; ++a) {
          S sum = dA(a, r[j]);
          for (int b = 0; b < k; ++b) sum += dA(a, s[b]) * f.B(b, j);
          f.col(a) = -sum;
        }
        f.lu.solve_in_place(f.col);
        for (int a = 0; a < k; ++a) X(l, s[a], j) = f.col(a);
      }
    }
  }

  // Kane's speeds frame: X, w0 and their q-derivatives into f.out from [J, q0, C, f] and their
  // derivatives in f.a_out (blocks of kane_block() values: the values, then d/dq^0 .. d/dq^(n-1)).
  template <class S>
  void fill_kane(const S* q, FrameGeometry<S>& f) const {
    const int n = this->n(), k = system_->k(), m = n - k;
    const std::size_t block = kane_block();
    auto J = [&](int l) { return RowMatMap<S>(f.a_out.data() + (1 + l) * block, n, n); };
    auto q0 = [&](int l) { return Eigen::Map<const VecX<S>>(f.a_out.data() + (1 + l) * block + n * n, n); };
    auto C = [&](int l) { return RowMatMap<S>(f.a_out.data() + (1 + l) * block + n * n + n, k, n); };
    auto fc = [&](int l) { return Eigen::Map<const VecX<S>>(f.a_out.data() + (1 + l) * block + n * n + n + k * n, k); };
    f.out.assign(static_cast<std::size_t>(1 + n) * n * n + (has_offset_ ? (1 + n) * n : 0), S(0.0));
    auto X = [&](int l) { return Eigen::Map<RowMatX<S>>(f.out.data() + (1 + l) * n * n, n, n); };
    auto w0 = [&](int l) { return Eigen::Map<VecX<S>>(f.out.data() + (1 + n) * n * n + (1 + l) * n, n); };
    // Bk = -C_dep^-1 C_ind, e = -C_dep^-1 f (pivoted LU of C_dep)
    f.As = C(-1).rightCols(k);
    if (!f.lu.compute(f.As)) kane_singular(q);
    f.B.resize(k, m);
    f.col.resize(k);
    for (int j = 0; j < m; ++j) {
      f.col = -C(-1).col(j);
      f.lu.solve_in_place(f.col);
      f.B.col(j) = f.col;
    }
    f.e = -fc(-1);
    f.lu.solve_in_place(f.e);
    // X = J E, w0 = J_dep e + q0 (J_dep = the last k columns of J)
    X(-1).leftCols(m) = J(-1).leftCols(m);
    X(-1).leftCols(m).noalias() += J(-1).rightCols(k) * f.B;
    X(-1).rightCols(k) = J(-1).rightCols(k);
    if (has_offset_) {
      w0(-1) = q0(-1);
      w0(-1).noalias() += J(-1).rightCols(k) * f.e;
    }
    for (int l = 0; l < n; ++l) {
      // dBk = -C_dep^-1 (dC_ind + dC_dep Bk), into f.dB
      f.dB.resize(k, m);
      for (int j = 0; j < m; ++j) {
        f.col = -C(l).col(j);
        f.col.noalias() -= C(l).rightCols(k) * f.B.col(j);
        f.lu.solve_in_place(f.col);
        f.dB.col(j) = f.col;
      }
      X(l).leftCols(m) = J(l).leftCols(m);
      X(l).leftCols(m).noalias() += J(l).rightCols(k) * f.B;
      X(l).leftCols(m).noalias() += J(-1).rightCols(k) * f.dB;
      X(l).rightCols(k) = J(l).rightCols(k);
      if (has_offset_) {  // de = -C_dep^-1 (df + dC_dep e)
        f.col = -fc(l);
        f.col.noalias() -= C(l).rightCols(k) * f.e;
        f.lu.solve_in_place(f.col);
        w0(l) = q0(l);
        w0(l).noalias() += J(l).rightCols(k) * f.e;
        w0(l).noalias() += J(-1).rightCols(k) * f.col;
      }
    }
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
  Tape values_tape_;  // Voronets frame: A only
  std::vector<int> solved_, free_;
};

}  // namespace nonholo
