// The midpoint discrete Lagrange-d'Alembert integrator (Cortes-Martinez; Fedorov-Zenkov 2005,
// section 2.2; notes/002_discrete_sleigh.md section 3.1) for any MechanicalSystem.
//
// With q_m = (q_k + q_{k+1})/2, v_m = (q_{k+1} - q_k)/h, t_m = t_k + h/2 and the discrete
// Lagrangian L_d(q_k, q_{k+1}) = h L(q_m, v_m), L = 1/2 v^T G v - V:
//   D1 L_d = h/2 dL/dq - G(q_m) v_m,   D2 L_d = h/2 dL/dq + G(q_m) v_m   (dL/dq at (q_m, v_m)),
// forces enter as the discrete forces F_d^- = F_d^+ = h/2 F(q_m, v_m, t_m), and the discrete
// constraint is the continuous one at the midpoint, A(q_m) v_m = b(q_m, t_m). One step solves
//   p_k + D1 L_d(q_k, q_{k+1}) + F_d^- + h A(q_k)^T lambda_k = 0,   A(q_m) v_m - b(q_m, t_m) = 0
// for (q_{k+1}, lambda_k) by Newton's method (Jacobian by dual numbers through the tape), then
// p_{k+1} = D2 L_d(q_k, q_{k+1}) + F_d^+. The state is (q_k, p_k), p_k the discrete momentum
// (D2 L_d of the previous step; it tends to G v as h -> 0), lambda_k approximates the
// continuous multiplier of G v' + c + dV = F + A^T lambda.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nonholo/integrator.hpp"
#include "nonholo/mechanics.hpp"

namespace nonholo {

struct DiscreteOptions {
  double newton_tol = 1e-14;  // on |delta q| relative to 1 + |q|
  int max_newton_iterations = 50;
  double max_wall_time = 0.0;
};

struct DiscreteOutput {
  int n = 0, k = 0;
  std::vector<double> t;
  std::vector<double> q, v, p;   // time-major, n per time
  std::vector<double> lambda;    // time-major, k per step (lambda_k of step k -> k+1)
  int status = 0;                // 0: all steps taken, -1: Newton failed (or stopped)
  std::string message;
  double t_last = 0.0;
  long newton_iterations = 0;
  double max_constraint_residual = 0.0;  // max |A(q_m) v_m - b| over the steps
  double cpu_time = 0.0;
  bool interrupted = false;
};

// Scratch space of the steps, sized by the first step and reused: later steps of the same
// system allocate nothing. One per thread (the integrator itself is immutable).
struct DiscreteWork {
  DiscreteWork();
  ~DiscreteWork();
  DiscreteWork(DiscreteWork&&) noexcept;
  DiscreteWork& operator=(DiscreteWork&&) noexcept;
  struct Impl;
  std::unique_ptr<Impl> impl;
};

class DiscreteIntegrator {
 public:
  DiscreteIntegrator(std::shared_ptr<const MechanicalSystem> system, double h);

  double h() const { return h_; }
  const MechanicalSystem& system() const { return *system_; }

  // From continuous data (q0, v0): p0 = G(q0) v0 (only its component on D matters: the
  // component on D° is absorbed by lambda_0). Second-order accurate.
  DiscreteOutput run(const std::vector<double>& q0, const std::vector<double>& v0, const std::vector<double>& params,
                     double t0, long n_steps, const DiscreteOptions& options, const InterruptCheck& interrupted = {}) const;

  // One step from (t, q_k, p_k): writes q_{k+1}, p_{k+1}, lambda_k; returns Newton iterations,
  // or throws SolverError when Newton fails. lambda is read first, as Newton's initial guess
  // (the previous step's lambda, or zeros), so it must hold k finite numbers on entry.
  int step(double t, const double* qk, const double* pk, const double* params, double* q_next, double* p_next,
           double* lambda, const DiscreteOptions& options) const;
  // The same with caller-owned scratch space (allocation-free after the first step).
  int step(double t, const double* qk, const double* pk, const double* params, double* q_next, double* p_next,
           double* lambda, const DiscreteOptions& options, DiscreteWork& work) const;

 private:
  std::shared_ptr<const MechanicalSystem> system_;
  double h_;
};

}  // namespace nonholo
