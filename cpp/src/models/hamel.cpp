#include "nonholo/models/hamel.hpp"

namespace nonholo {

VecX<double> HamelModel::multipliers(double t, const double* q, const double* v, const double* p) const {
  const int n = frame_->n(), m = frame_->rank();
  FrameWork<double> w;
  frame_prologue(*frame_, t, q, v, p, w);
  w.vdot = w.rhs;
  w.chol_g.solve_in_place(w.vdot);
  w.wdot = w.a + w.XD * w.vdot;
  w.E = w.geo.G() * w.wdot - w.geo.r();
  return w.frame.X().rightCols(n - m).transpose() * w.E;
}

}  // namespace nonholo
