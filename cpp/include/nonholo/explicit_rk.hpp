// An explicit Runge-Kutta integrator for non-stiff models: the Dormand-Prince 8(5,3) pair
// (DOP853, Hairer-Norsett-Wanner I, section II.10): order 8 with the combined 5th/3rd-order error
// estimate, step control fac = 0.9 err^(-1/8) in [1/3, 6], Hairer's starting step, and the dense
// output of order 7 (three extra stages, computed only on the steps that contain an output time).
//
// Measured here against CVODE's Adams on the reduced models (benchmarks/reduced_rk.py): it needs
// 5-10x fewer steps at the same tolerance and about as many right-hand sides, with a per-step cost
// outside the model of a few vector operations. No events, sensitivities or drift control: a
// benchmark and an alternative, not (yet) a method of nh.simulate.
#pragma once

#include <string>
#include <vector>

#include "nonholo/model.hpp"

namespace nonholo {

struct ExplicitRkOutput {
  std::vector<double> t, y;  // y row-major: one state per output time
  long n_steps = 0, n_rhs = 0, n_rejected = 0;
  int status = 0;  // 0: reached tf; -1: failed (message)
  std::string message;
};

// Integrates y' = model.rhs(t, y, p) from t0 to tf (tf > t0) at the tolerances rtol, atol
// (weights atol + rtol max(|y_n|, |y_n+1|), RMS norm). Outputs at the sorted times t_eval
// (inside [t0, tf]), or at every step when t_eval is empty.
ExplicitRkOutput integrate_dop853(const Model& model, const std::vector<double>& p, double t0, double tf,
                                  const std::vector<double>& y0, const std::vector<double>& t_eval, double rtol,
                                  double atol, long max_steps = 500000);

}  // namespace nonholo
