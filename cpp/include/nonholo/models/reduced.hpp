// Reduced dynamics of order K on the slow manifold of the friction model (Gzenda-Chhabra
// section 3.9, the exact P-projected form; Eldering section 7 for K = 1). The slip is truncated
// after h^(K):  v = u + s,  s = sum_{k<=K} eps^k h^(k)(t, q, u),  u' = projected acceleration
// at v (slow_manifold.hpp). Not stiff; error O(eps^(K+1)) on bounded intervals against the
// friction model started on the slow manifold. K = 0 is the nonholonomic model. eps is the last
// parameter.
//
// Two states:
//   ReducedModel       (q, u), u = P v + v_b in R^n on the constraint set A u = b;
//   ReducedFrameModel  (q, w), w in R^(n-k) the quasi-velocities of a frame X = [X_D | X_C]
//                      adapted to D (linear constraints): u = X_D(q) w, and from
//                      u' = (D_v X_D) w + X_D w',  w' = [X^-1 (u' - (D_v X_D) w)]_D.
// h^(1..K) come from a CompiledSlip (one tape of (q, u, t, p)) when one is given, else from the
// Taylor-mode expansion at every evaluation. With a CompiledSlip the right-hand side does no
// heap allocation once its workspace is sized (first call).
#pragma once

#include <type_traits>

#include <memory>

#include "nonholo/frame.hpp"
#include "nonholo/models/constrained_model.hpp"
#include "nonholo/slow_manifold.hpp"
#include "nonholo/slow_manifold_graph.hpp"

namespace nonholo {

template <class S>
struct ReducedWork : MechanicsWork<S> {
  ProjectionWork<S> proj;
  SlowManifoldWork<S> slow;
  MatX<S> coeffs;
  VecX<S> u, v, s, udot;
  std::vector<S> slip_in, slip_out, slip_work;
  // frame form
  FrameGeometry<S> frame;
  Lu<S> lu;
  MatX<S> DvX;
  VecX<S> rhs;
};

// The truncated slip s = sum_{k<=K} eps^k h^(k)(t, q, u) into w.s (t a number or of type S; the
// parameters plain numbers, or of type S for sensitivities, which then take the Taylor-mode path).
template <class S, class Time, class P>
void truncated_slip(const MechanicalSystem& sys, const CompiledSlip* compiled, int order, const Time& t, const S* q,
                    const S* u, const P* p, const P& eps, ReducedWork<S>& w) {
  const int n = sys.n();
  w.s.setZero(n);
  if (order == 0) return;
  if constexpr (std::is_same_v<P, double>) {
    if (compiled != nullptr) {
      compiled->evaluate(S(t), q, u, p, w.slip_in, w.slip_out, w.slip_work);
      double e = 1.0;
      for (int k = 0; k < order; ++k) {
        e *= eps;
        for (int i = 0; i < n; ++i) w.s(i) += e * w.slip_out[k * n + i];
      }
      return;
    }
  }
  slip_coefficients(sys, t, q, u, p, order, w.slow, w.coeffs);
  P e(1.0);
  for (int k = 0; k < order; ++k) {
    e *= eps;
    w.s += e * w.coeffs.col(k);
  }
}

// q' = v = u + s and u' (into qdot, udot), at (t, q, u).
template <class S, class P, class OutQ, class OutU>
void reduced_velocity_and_acceleration(const MechanicalSystem& sys, const CompiledSlip* compiled, int order,
                                       double t, const S* q, const S* u, const P* p, ReducedWork<S>& w,
                                       OutQ&& qdot, OutU&& udot) {
  const int n = sys.n();
  const P eps = p[sys.n_params()];
  truncated_slip(sys, compiled, order, t, q, u, p, eps, w);
  w.v = Eigen::Map<const VecX<S>>(u, n);
  w.v += w.s;
  sys.evaluate(t, q, w.v.data(), p, w.geo);
  qdot = w.v;
  projected_acceleration(w, w.proj, w.v, w.s, udot);
}

// Throws ModelError when mu is not symmetric positive definite at the evaluated point.
void check_reduced_state(const MechanicalSystem& sys, const Geometry<double>& geo);

// Residual of the invariance equation s = eps Qmat (f - u' - s') (slow_manifold.hpp) for the
// truncation s = sum_{k<=K} eps^k h^(k) at (t, q, u): O(eps^(K+1)) while the series behaves
// asymptotically. s' is the derivative along the reduced flow, by one forward dual direction.
// p holds the system's parameters then eps.
VecX<double> invariance_residual(const MechanicalSystem& sys, const CompiledSlip* compiled, int order, double t,
                                 const double* q, const double* u, const double* p);

class ReducedModel : public ConstrainedModel<ReducedModel, ReducedWork> {
 public:
  ReducedModel(std::shared_ptr<const MechanicalSystem> system, int order,
               std::shared_ptr<const CompiledSlip> compiled = nullptr);

  std::string kind() const override { return "reduced"; }
  int n_states() const override { return 2 * system().n(); }
  int n_extra_params() const override { return 1; }
  int order() const { return order_; }
  bool compiled() const { return compiled_ != nullptr; }
  void check_state(double t, const double* y, const double* p, Workspace& ws) const override;

  template <class S, class P>
  void eval(double t, const S* y, const P* p, S* ydot, ReducedWork<S>& w) const {
    const int n = system().n();
    reduced_velocity_and_acceleration(system(), compiled_.get(), order_, t, y, y + n, p, w,
                                      Eigen::Map<VecX<S>>(ydot, n), Eigen::Map<VecX<S>>(ydot + n, n));
  }

 private:
  int order_;
  std::shared_ptr<const CompiledSlip> compiled_;
};

class ReducedFrameModel : public ModelImpl<ReducedFrameModel, ReducedWork> {
 public:
  ReducedFrameModel(std::shared_ptr<const Frame> frame, int order,
                    std::shared_ptr<const CompiledSlip> compiled = nullptr);

  std::string kind() const override { return "reduced_frame"; }
  int n_states() const override { return system().n() + frame_->rank(); }
  int n_extra_params() const override { return 1; }
  int order() const { return order_; }
  bool compiled() const { return compiled_ != nullptr; }
  const Frame& frame() const { return *frame_; }
  void check_state(double t, const double* y, const double* p, Workspace& ws) const override;

  template <class S, class P>
  void eval(double t, const S* y, const P* p, S* ydot, ReducedWork<S>& w) const {
    const int n = system().n(), m = frame_->rank();
    Eigen::Map<const VecX<S>> wq(y + n, m);
    frame_->evaluate(y, p, w.frame);
    w.u.noalias() = w.frame.X().leftCols(m) * wq;
    w.udot.resize(n);
    reduced_velocity_and_acceleration(system(), compiled_.get(), order_, t, y, w.u.data(), p, w,
                                      Eigen::Map<VecX<S>>(ydot, n), w.udot);
    // w' = [X^-1 (u' - (D_v X_D) w)]_D, D_v X_D = sum_l dX_D/dq^l v^l
    w.DvX.setZero(n, m);
    for (int l = 0; l < n; ++l) w.DvX.noalias() += w.frame.dX(l).leftCols(m) * w.v(l);
    w.rhs = w.udot;
    w.rhs.noalias() -= w.DvX * wq;
    if (!w.lu.compute(w.frame.X())) throw ModelError("the frame is singular at " + describe_point(w.geo));
    w.lu.solve_in_place(w.rhs);
    Eigen::Map<VecX<S>>(ydot + n, m) = w.rhs.head(m);
  }

 private:
  std::shared_ptr<const Frame> frame_;
  int order_;
  std::shared_ptr<const CompiledSlip> compiled_;
};

}  // namespace nonholo
