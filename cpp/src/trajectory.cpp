#include "nonholo/trajectory.hpp"

#include "nonholo/slow_manifold_graph.hpp"

namespace nonholo {

void slow_manifold_velocity(const MechanicalSystem& sys, const CompiledSlip* compiled, int order, double eps, int n_t,
                            const double* t, const double* Y, int stride, const double* p, double* qdot) {
  const int n = sys.n();
  SlipWork<double> w;
  VecX<double> s(n);
  for (int i = 0; i < n_t; ++i) {
    const double* q = Y + static_cast<long>(i) * stride;
    truncated_slip(sys, compiled, order, t[i], q, q + n, p, eps, w, s);
    Eigen::Map<VecX<double>>(qdot + static_cast<long>(i) * n, n) = Eigen::Map<const VecX<double>>(q + n, n) + s;
  }
}

void frame_velocity(const Frame& frame, int n_t, const double* Y, int stride, const double* p, double* qdot,
                    const std::vector<int>* solved) {
  const int n = frame.n(), m = frame.rank();
  FrameGeometry<double> g;
  if (solved != nullptr) frame.set_split(*solved, g);
  for (int i = 0; i < n_t; ++i) {
    const double* q = Y + static_cast<long>(i) * stride;
    Eigen::Map<const VecX<double>> v(q + n, m);
    double* out = qdot + static_cast<long>(i) * n;
    if (frame.voronets()) {  // X_D v = (v on r, B v on s): B from A alone, no dA/dq
      frame.evaluate_B(q, p, g);
      for (int j = 0; j < m; ++j) out[g.free[j]] = v(j);
      for (int a = 0; a < n - m; ++a) out[g.solved[a]] = g.B.row(a).dot(v);
      continue;
    }
    frame.evaluate(q, p, g);
    Eigen::Map<VecX<double>>(out, n) = g.X().leftCols(m) * v;
    if (frame.has_offset()) Eigen::Map<VecX<double>>(out, n) += g.w0();
  }
}

void trajectory_energy(const MechanicalSystem& sys, int n_t, const double* t, const double* Q, int q_stride,
                       const double* V, const double* p, double* energy) {
  const int n = sys.n();
  Geometry<double> g;
  for (int i = 0; i < n_t; ++i) {
    const double* v = V + static_cast<long>(i) * n;
    sys.evaluate_dynamics(t[i], Q + static_cast<long>(i) * q_stride, v, p, g);  // G and V suffice
    Eigen::Map<const VecX<double>> vv(v, n);
    energy[i] = 0.5 * vv.dot(g.G() * vv) + g.V();
  }
}

void trajectory_constraint_residual(const Model& model, int n_t, const double* t, const double* Y,
                                    const double* p, double* residual) {
  const int s = model.n_states();
  const ConstraintSet* constraints = model.constraints();
  if (constraints == nullptr) {  // nothing to drift from
    std::fill(residual, residual + n_t, 0.0);
    return;
  }
  auto ws = model.workspace();
  for (int i = 0; i < n_t; ++i) {
    double r = 0.0, scale = 0.0;
    constraints->constraint_residual(t[i], Y + static_cast<long>(i) * s, p, *ws, &r, &scale);
    residual[i] = scale > 0 ? r / scale : r;
  }
}

}  // namespace nonholo
