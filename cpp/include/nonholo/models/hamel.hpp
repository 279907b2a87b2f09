// Nonholonomic and vakonomic dynamics in an anholonomic frame (Mestdag-Crampin 2010, Prop. 1
// and section 4; notes/004 sections 3.2 and 3.4), state (q, v^alpha) and (q, v^alpha, mu_a).
//
// With q' = w = X_D v (X_D the first m frame vectors) and D_w X = sum_l dX/dq^l w^l, Hamel's
// equations g_ab v'^b = X_a(L*) - v^c X_c(p_a) - R^j_ab v^b p_j (+ X_a . F) reduce, for
// L = 1/2 q'^T G q' - V, to the projection of Lagrange-d'Alembert onto D:
//     (X_D^T G X_D) v' = X_D^T (r - G (D_w X_D) v),      r = F - c(q, w) - dV,
// where the structure-function term is absorbed by the chain rule w' = (D_w X_D) v + X_D v'
// (the frame multipliers are lambda_a = X_a^T (G w' - r)). The vakonomic equations add
// R^a_ab v^b mu_a = mu^T Theta_C [(D_{X_a} X)_D v - D_w X_a] (Theta_C the constraint rows of
// X^-1) to the right-hand side, and mu_a' = lambda_a - mu^T Theta_C [(D_{X_a} X)_D v - D_w X_a].
#pragma once

#include "nonholo/frame.hpp"
#include "nonholo/model.hpp"

namespace nonholo {

template <class S>
struct FrameWork : MechanicsWork<S> {
  FrameGeometry<S> frame;
  Ldlt<S> chol_g;
  Lu<S> lu;
  MatX<S> XD, DwX, g, Theta, DX, GX;
  VecX<S> w, a, rhs, vdot, wdot, E, tmp, col, mu, Gw;
};

// Shared steps: frame, velocity w, geometry, D_w X, a = (D_w X_D) v, and the nonholonomic
// right-hand side X_D^T (r - G a).
template <class S, class P>
void frame_prologue(const Frame& frame, double t, const S* q, const S* v, const P* p, FrameWork<S>& w) {
  const MechanicalSystem& sys = frame.system();
  const int n = frame.n(), m = frame.rank();
  frame.evaluate(q, p, w.frame);
  w.XD = w.frame.X().leftCols(m);
  w.w.noalias() = w.XD * Eigen::Map<const VecX<S>>(v, m);
  sys.evaluate_dynamics(t, q, w.w.data(), p, w.geo);
  w.DwX.setZero(n, n);
  for (int l = 0; l < n; ++l) w.DwX += w.frame.dX(l) * w.w(l);
  w.a.noalias() = w.DwX.leftCols(m) * Eigen::Map<const VecX<S>>(v, m);
  w.tmp = w.geo.r();
  w.tmp.noalias() -= w.geo.G() * w.a;
  w.rhs.noalias() = w.XD.transpose() * w.tmp;
  w.GX.noalias() = w.geo.G() * w.XD;
  w.g.noalias() = w.XD.transpose() * w.GX;
  if (!w.chol_g.compute(w.g, w.geo.layout->definite_metric))
    throw ModelError("the frame metric X_D^T G X_D is singular at " + describe_point(w.geo));
}

// mu^T Theta_C [(D_{X_j} X)_D v - D_w X_j] for the frame vector j (the curvature term).
template <class S>
S curvature_term(FrameWork<S>& w, const S* v, const VecX<S>& mu, int j, int m) {
  const int n = static_cast<int>(w.XD.rows());
  w.col = -w.DwX.col(j);
  for (int l = 0; l < n; ++l)
    w.col.noalias() += w.frame.X()(l, j) * (w.frame.dX(l).leftCols(m) * Eigen::Map<const VecX<S>>(v, m));
  w.Gw.noalias() = w.Theta.bottomRows(n - m) * w.col;
  return mu.dot(w.Gw);
}

// frame_prologue's tapes: the frame (X and dX/dq, or A and dA/dq for the Voronets frame) and
// the dynamics blocks.
inline std::vector<std::string> frame_rhs_tapes() { return {"frame", "dynamics"}; }

class HamelModel : public ModelImpl<HamelModel, FrameWork> {
 public:
  explicit HamelModel(std::shared_ptr<const Frame> frame) : ModelImpl(frame->system_ptr()), frame_(std::move(frame)) {}

  std::string kind() const override { return "hamel"; }
  int n_states() const override { return frame_->n() + frame_->rank(); }
  const Frame& frame() const { return *frame_; }
  std::vector<std::string> rhs_tapes() const override { return frame_rhs_tapes(); }

  template <class S, class P>
  void eval(double t, const S* y, const P* p, S* ydot, FrameWork<S>& w) const {
    const int n = frame_->n(), m = frame_->rank();
    frame_prologue(*frame_, t, y, y + n, p, w);
    std::copy(w.w.data(), w.w.data() + n, ydot);
    Eigen::Map<VecX<S>> vdot(ydot + n, m);
    vdot = w.rhs;
    w.chol_g.solve_in_place(vdot);
  }

  // The frame multipliers lambda_a = X_a^T (G w' - r) at (t, q, v^alpha) (Prop. 1, eq. (10)).
  VecX<double> multipliers(double t, const double* q, const double* v, const double* p) const;

 protected:
  std::vector<std::string> own_tape_names() const override { return frame_->tape_names(); }
  const Tape* own_tape(const std::string& name) const override { return frame_->tape_named(name); }

 private:
  std::shared_ptr<const Frame> frame_;
};

class FrameVakonomicModel : public ModelImpl<FrameVakonomicModel, FrameWork> {
 public:
  explicit FrameVakonomicModel(std::shared_ptr<const Frame> frame)
      : ModelImpl(frame->system_ptr()), frame_(std::move(frame)) {}

  std::string kind() const override { return "frame_vakonomic"; }
  int n_states() const override { return 2 * frame_->n(); }
  std::vector<std::string> rhs_tapes() const override { return frame_rhs_tapes(); }

  template <class S, class P>
  void eval(double t, const S* y, const P* p, S* ydot, FrameWork<S>& w) const {
    const int n = frame_->n(), m = frame_->rank(), k = n - m;
    const S* v = y + n;
    Eigen::Map<const VecX<S>> mu(y + n + m, k);
    frame_prologue(*frame_, t, y, v, p, w);
    if (!w.lu.compute(w.frame.X())) throw ModelError("the frame is singular at " + describe_point(w.geo));
    w.lu.inverse(w.Theta);
    w.mu = mu;
    for (int a = 0; a < m; ++a) w.rhs(a) += curvature_term(w, v, w.mu, a, m);
    std::copy(w.w.data(), w.w.data() + n, ydot);
    w.vdot = w.rhs;
    w.chol_g.solve_in_place(w.vdot);
    std::copy(w.vdot.data(), w.vdot.data() + m, ydot + n);
    w.wdot = w.a;
    w.wdot.noalias() += w.XD * w.vdot;
    w.E = -w.geo.r();
    w.E.noalias() += w.geo.G() * w.wdot;
    for (int b = 0; b < k; ++b)
      ydot[n + m + b] = w.frame.X().col(m + b).dot(w.E) - curvature_term(w, v, w.mu, m + b, m);
  }

 protected:
  std::vector<std::string> own_tape_names() const override { return frame_->tape_names(); }
  const Tape* own_tape(const std::string& name) const override { return frame_->tape_named(name); }

 private:
  std::shared_ptr<const Frame> frame_;
};

}  // namespace nonholo
