// Forward sensitivities of a trajectory with CVODES: s_j = dy/dtheta_j for a model parameter
// or an initial state, solution of s_j' = (df/dy) s_j + df/dtheta_j with s_j(t0) = dy0/dtheta_j
// (Hindmarsh et al., SUNDIALS/CVODES, ACM TOMS 31 (2005); Serban-Hindmarsh 2005). The
// right-hand side is one directional derivative of the model's vector field per sensitivity
// (dual numbers, Model::directional_derivatives), never a difference quotient.
//
// Constrained models: the initial sensitivities are projected onto the linearized constraint
// (the derivative of the projection of y0); with drift control the outputs are projected the
// same way in CVODES's weighted norm, as the derivative of the projected trajectory.
// At an event g(t, y(t; theta); theta) = 0 the implicit function theorem gives
//   dt*/dtheta = -(g_y s + g_theta) / (g_t + g_y f),   d y(t*)/dtheta = s(t*) + f(t*) dt*/dtheta.
#pragma once

#include <memory>
#include <vector>

#include <cvodes/cvodes.h>

#include "nonholo/integrator.hpp"
#include "nonholo/sundials/handles.hpp"

namespace nonholo {

// One CVODES sensitivity problem attached to an integration (owned by it).
class SensitivityRun {
 public:
  SensitivityRun(const Model& model, const std::vector<double>& params, const IntegrationOptions& options,
                 const std::vector<EventSpec>& events);
  ~SensitivityRun();
  SensitivityRun(const SensitivityRun&) = delete;
  SensitivityRun& operator=(const SensitivityRun&) = delete;

  int count() const { return static_cast<int>(index_.size()); }
  // Initial sensitivities at (t0, y0), CVodeSensInit and the corrector's settings. Call after
  // CVodeInit, the tolerances and the state's nonlinear or linear solver.
  // `rhs` is CVODES's callback; it finds this object through its user data and calls evaluate.
  // `yS0` (count() x n_states, optional): start from these sensitivities instead (a switch from
  // Adams to BDF goes on from the sensitivities the Adams run reached, current()).
  void attach(void* cvode_mem, SUNContext ctx, CVSensRhsFn rhs, double t0, const double* y0, bool fixed_point,
              bool project, const double* yS0 = nullptr);
  // The sensitivities at t within the last step (count() x n_states, as attach's yS0).
  std::vector<double> current(double t);
  // ySdot_j = (df/dy) yS_j + df/dtheta_j; returns 1 (recoverable) on non-finite values.
  int evaluate(double t, N_Vector y, N_Vector* yS, N_Vector* ySdot);
  // Appends s(t) (n_sens x n_states) for an output at t where the state is y.
  void record(double t, const double* y, std::vector<double>& out);
  // Appends dt*/dtheta and dy(t*)/dtheta for an occurrence of event `event` at (t, y).
  void record_event(int event, double t, const double* y, std::vector<double>& t_out, std::vector<double>& y_out);

 private:
  void interpolate(double t);
  void project(double t, const double* y, bool with_weights);

  const Model& model_;
  const std::vector<double>& params_;
  const IntegrationOptions& opt_;
  const std::vector<EventSpec>& events_;
  std::unique_ptr<Workspace> ws_;
  std::vector<int> index_;           // parameter index of each sensitivity, -1 for an initial state
  std::vector<double> pbar_;         // scales for CVODES's sensitivity tolerances
  std::vector<const double*> in_;    // pointer scratch for the model's directional derivatives
  std::vector<double*> out_;
  std::vector<double> f_;            // f(t, y) at an event
  void* mem_ = nullptr;
  bool project_ = false;
  int n_ = 0;
  N_Vector* yS_ = nullptr;
  sun::VectorPtr weights_;
  sun::NonlinearSolverPtr nls_;
};

}  // namespace nonholo
