// Nonholonomic and vakonomic dynamics in an anholonomic frame (Mestdag-Crampin 2010, Prop. 1
// and section 4; notes/004 sections 3.2 and 3.4), state (q, v^alpha) and (q, v^alpha, mu_a).
//
// With q' = w = X_D v (X_D the first m frame vectors) and D_w X = sum_l dX/dq^l w^l, Hamel's
// equations g_ab v'^b = X_a(L*) - v^c X_c(p_a) - R^j_ab v^b p_j (+ X_a . F) reduce, for
// L = 1/2 q'^T G q' - V, to the projection of Lagrange-d'Alembert onto D:
//     (X_D^T G X_D) v' = X_D^T (r - G (D_w X_D) v),      r = F - c(q, w) - dV,
// where the structure-function term is absorbed by the chain rule w' = (D_w X_D) v + X_D v'
// (the frame multipliers are lambda_a = X_a^T (G w' - r)). With affine constraints A q' = b(q) the
// frame carries an offset w0(q), A w0 = b (Frame::has_offset): q' = w = X_D v + w0 and the same
// equations hold with (D_w X_D) v replaced by (D_w X_D) v + D_w w0 (Hamel model only). The
// vakonomic equations add
// R^a_ab v^b mu_a = mu^T Theta_C [(D_{X_a} X)_D v - D_w X_a] (Theta_C the constraint rows of
// X^-1) to the right-hand side, and mu_a' = lambda_a - mu^T Theta_C [(D_{X_a} X)_D v - D_w X_a].
//
// Both models are watched like the frame form of the reduced model (models/frame_watch.hpp): a
// Voronets frame is re-split during the run where max|B_aj| > 10, (q, v) mapped through the
// physical velocity X_D v; a frame given by its vectors stops the run where cond_1(X) > 1e6.
//
// The multipliers under a change of split (FrameVakonomicModel::remap_extra). The fibre
// coordinates mu_a of the vakonomic state are those of a point of D^0, the annihilator of D: the
// covector is mu_a theta^a, theta^a the constraint rows of X^-1 (Mestdag-Crampin 2010 section 4,
// eq. (12), L - mu_a v^a with v^a = theta^a(q'); notes/004 section 3.4). For a Voronets frame
// theta_C X_D = 0 and theta_C X_C = I with X_C = d/ds give theta_C = A_s^-1 A, so
//     mu_a theta^a = lambda^T A,   lambda = A_s^-T mu   (the coordinate multipliers of
//                                                        Lewis-Murray's L - lambda^T A q'),
// a covector that does not depend on the split. Another split s' of the same D has
// theta'_C = A_s'^-1 A = K theta_C with K = A_s'^-1 A_s (q only), and the extended Lagrangian
// L - mu^T theta_C q' = L - mu'^T theta'_C q' is the same function of (q, q', mu) when
//     mu' = K^-T mu = A_s'^T A_s^-T mu,
// a point transformation of Q x R^k (fibre-linear, q unchanged): the vakonomic equations, its
// Euler-Lagrange equations, are invariant, so a run re-split at t continues the same motion from
// (q, v'_r = u_r', mu') with no other change. v^a = 0 in both frames (q' in D), so nothing else
// of the state depends on the split.
#pragma once

#include <limits>
#include <type_traits>

#include "nonholo/frame.hpp"
#include "nonholo/model.hpp"
#include "nonholo/models/frame_watch.hpp"

namespace nonholo {

template <class S>
struct FrameWork : MechanicsWork<S> {
  FrameGeometry<S> frame;
  Ldlt<S> chol_g;
  Lu<S> lu;
  MatX<S> XD, g, Theta, DX, GX;
  VecX<S> a, rhs, vdot, wdot, E, tmp, col, mu, Gw;
};

// Shared steps: frame, velocity w, geometry, D_w X, a = (D_w X_D) v, and the nonholonomic
// right-hand side X_D^T (r - G a). The frame's derivatives along w alone (Frame::evaluate_along),
// or every dX/dq^l where `all_derivatives` (the vakonomic curvature term reads them).
template <class S, class P>
void frame_prologue(const Frame& frame, double t, const S* q, const S* v, const P* p, FrameWork<S>& w,
                    bool all_derivatives = false) {
  const MechanicalSystem& sys = frame.system();
  const int m = frame.rank();
  if (all_derivatives) {
    frame.evaluate(q, p, w.frame);
    frame.contract_along(v, w.frame);
  } else {
    frame.evaluate_along(q, v, p, w.frame);
  }
  w.XD = w.frame.X().leftCols(m);
  sys.evaluate_dynamics(t, q, w.frame.w.data(), p, w.geo);
  w.a.noalias() = w.frame.DwX.leftCols(m) * Eigen::Map<const VecX<S>>(v, m);
  if (frame.has_offset()) w.a += w.frame.Dw0;  // the chain rule of w0(q(t)): D_w w0
  w.tmp = w.geo.r();
  w.tmp.noalias() -= w.geo.G() * w.a;
  w.rhs.noalias() = w.XD.transpose() * w.tmp;
  w.GX.noalias() = w.geo.G() * w.XD;
  w.g.noalias() = w.XD.transpose() * w.GX;
  if (!w.chol_g.compute(w.g, w.geo.layout->definite_metric))
    throw ModelError("the frame metric X_D^T G X_D is singular at " + describe_point(w.geo));
}

// The frame watch's growth indicator for a frame given by vectors (values only; a Voronets
// frame records max|B_aj| in its own evaluation): the LU pivot ratio of X, infinite when X is
// singular to working precision. Factors X into w.lu.
template <class S>
void record_vector_frame_growth(const Frame& frame, FrameWork<S>& w) {
  if constexpr (std::is_same_v<S, double>) {
    if (frame.voronets()) return;
    if (w.lu.compute(w.frame.X()))
      record_frame_growth(w.frame, w.lu);
    else
      w.frame.growth = std::numeric_limits<double>::infinity();
  }
}

// mu^T Theta_C [(D_{X_j} X)_D v - D_w X_j] for the frame vector j (the curvature term).
template <class S>
S curvature_term(FrameWork<S>& w, const S* v, const VecX<S>& mu, int j, int m) {
  const int n = static_cast<int>(w.XD.rows());
  w.col = -w.frame.DwX.col(j);
  for (int l = 0; l < n; ++l)
    w.col.noalias() += w.frame.X()(l, j) * (w.frame.dX(l).leftCols(m) * Eigen::Map<const VecX<S>>(v, m));
  w.Gw.noalias() = w.Theta.bottomRows(n - m) * w.col;
  return mu.dot(w.Gw);
}

// frame_prologue's tapes: the frame's values and its tangent along w (or, with all derivatives, X
// and dX/dq; A and dA/dq for the Voronets frame) and the dynamics blocks.
inline std::vector<TapeName> frame_rhs_tapes(bool all_derivatives) {
  if (all_derivatives) return {TapeName::Frame, TapeName::Dynamics};
  return {TapeName::FrameValues, TapeName::FrameAlong, TapeName::Dynamics};
}

class HamelModel : public FrameWatchedModel<HamelModel, FrameWork> {
 public:
  explicit HamelModel(std::shared_ptr<const Frame> frame) : FrameWatchedModel(std::move(frame)) {}

  std::string kind() const override { return "hamel"; }
  int n_states() const override { return frame_->n() + frame_->rank(); }
  FrameWatchText frame_watch_text() const {
    return {"Hamel model", "the quasi-velocities v",
            "use the coordinate model (system.nonholonomic(form=\"qdot\"): a system from KanesMethod "
            "integrates its speeds by default)"};
  }
  std::vector<TapeName> rhs_tapes() const override { return frame_rhs_tapes(false); }

  template <class S, class P>
  void eval(double t, const S* y, const P* p, S* ydot, FrameWork<S>& w) const {
    const int n = frame_->n(), m = frame_->rank();
    frame_prologue(*frame_, t, y, y + n, p, w);
    record_vector_frame_growth(*frame_, w);
    std::copy(w.frame.w.data(), w.frame.w.data() + n, ydot);
    Eigen::Map<VecX<S>> vdot(ydot + n, m);
    vdot = w.rhs;
    w.chol_g.solve_in_place(vdot);
  }

  // The frame multipliers lambda_a = X_a^T (G w' - r) at (t, q, v^alpha) (Prop. 1, eq. (10)).
  VecX<double> multipliers(double t, const double* q, const double* v, const double* p) const;

 protected:
  std::vector<TapeName> own_tape_names() const override { return frame_->tape_names(); }
  const Tape* own_tape(TapeName name) const override { return frame_->tape_named(name); }
};

class FrameVakonomicModel : public FrameWatchedModel<FrameVakonomicModel, FrameWork> {
 public:
  explicit FrameVakonomicModel(std::shared_ptr<const Frame> frame) : FrameWatchedModel(std::move(frame)) {}

  std::string kind() const override { return "frame_vakonomic"; }
  int n_states() const override { return 2 * frame_->n(); }
  FrameWatchText frame_watch_text() const {
    return {"frame-vakonomic model", "the quasi-velocities v", "use the coordinate model (system.vakonomic())"};
  }
  // mu' = A_s'^T A_s^-T mu at a re-split (the top of this file).
  void remap_extra(double* mu, const FrameResplit& change) const;
  std::vector<TapeName> rhs_tapes() const override { return frame_rhs_tapes(true); }

  template <class S, class P>
  void eval(double t, const S* y, const P* p, S* ydot, FrameWork<S>& w) const {
    const int n = frame_->n(), m = frame_->rank(), k = n - m;
    const S* v = y + n;
    Eigen::Map<const VecX<S>> mu(y + n + m, k);
    frame_prologue(*frame_, t, y, v, p, w, true);
    if (!w.lu.compute(w.frame.X())) throw ModelError("the frame is singular at " + describe_point(w.geo));
    if constexpr (std::is_same_v<S, double>)
      if (!frame_->voronets()) record_frame_growth(w.frame, w.lu);
    w.lu.inverse(w.Theta);
    w.mu = mu;
    for (int a = 0; a < m; ++a) w.rhs(a) += curvature_term(w, v, w.mu, a, m);
    std::copy(w.frame.w.data(), w.frame.w.data() + n, ydot);
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
  std::vector<TapeName> own_tape_names() const override { return frame_->tape_names(); }
  const Tape* own_tape(TapeName name) const override { return frame_->tape_named(name); }
};

}  // namespace nonholo
