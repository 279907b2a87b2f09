// Direct collocation of an optimal control problem, as an IPOPT NLP evaluated from tapes.
//
// The trajectory is sampled at collocation points p = 0 .. P-1, each with its block of
// variables z_p = (y_p, u_p) (n_y states, n_u controls); the duration T is one more variable
// when it is free (last in x). On interval k (fraction dtau_k of T, step h_k = T dtau_k) the
// points p0 = k s .. k s + s (s = 1 trapezoid, s = 2 Hermite-Simpson, separated form) enter
//   defects     sum_j a_dj y_{p0+j} - h_k sum_j b_dj f(z_{p0+j}) = 0   (one stencil d per row block),
//   the cost    J = sum_k h_k sum_j w_j L(z_{p0+j}) + phi(y_{P-1}),
// and every point carries the path constraints g(z_p) in [g_lo, g_hi].
//
// Holonomic constraints phi(y) = 0 (n_h of them; Posa, Kuindersma & Tedrake 2016) are imposed at
// position level at the points and rows listed in (hol_points, hol_rows); each stencil d of interval k
// then carries n_h correction variables gamma_kd (after the point blocks, before T), and its defect
// becomes  sum_j a_dj y_{p0+j} - h_k sum_j b_dj f(z_{p0+j}) - h_k C(z_{p0+c_d}, gamma_kd),
// C(z, gamma) = dphi/dy(y)^T gamma evaluated at the stencil's point c_d (`corr_offsets`). With the
// velocity form dphi/dy f = 0 built into f, the NLP stays regular and gamma = O(h^order) -> 0.
//
// The per-point functions are tapes over z: `node` gives [f (n_y), L, g (n_g), then the values
// of the sparse Jacobian d[f, L, g]/dz on `jac_rows` x `jac_cols`]; `hessian` (inputs z and the
// weights mu of [f, L, g]) gives the lower triangle of sum_o mu_o d^2 F_o / dz^2 on `hess_rows` x
// `hess_cols`; `terminal` (inputs y) gives [phi, dphi/dy (dense), d^2phi/dy^2 on its pattern].
// With holonomic constraints the node tape's outputs are [f, L, g, phi (n_h), jac values] and the
// `correction` tapes are built like the node's over (z, gamma) with the outputs C (n_y).
// The NLP's Jacobian and Hessian patterns are assembled once, with a plan of contributions per
// entry; evaluations only run the tapes and the plan.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nonholo/tape/tape.hpp"

namespace nonholo {

// A stencil of the transcription: a row block sum_j a_j y_{p0+j} - h sum_j b_j f_{p0+j}.
struct CollocationStencil {
  std::vector<int> offsets;
  std::vector<double> a, b;
};

struct CollocationProblem {
  int n_y = 0, n_u = 0, n_g = 0;
  int step = 1;                           // points per interval minus one (1 trapezoid, 2 HS)
  std::vector<double> dtau;               // per interval, sums to 1
  std::vector<CollocationStencil> stencils;
  std::vector<int> quad_offsets;          // quadrature of the running cost on an interval
  std::vector<double> quad_weights;
  bool free_time = false;
  double t_final = 1.0;                   // the duration when fixed

  std::shared_ptr<const Tape> node;       // z -> [f, L, g, jac values]
  std::vector<int> jac_rows, jac_cols;
  std::shared_ptr<const Tape> hessian;    // (z, mu) -> lower-triangle values
  std::vector<int> hess_rows, hess_cols;
  std::shared_ptr<const Tape> terminal;   // y -> [phi, grad (n_y), hess values]; may be null
  std::vector<int> term_hess_rows, term_hess_cols;

  std::vector<double> g_lo, g_hi;         // n_g each
  std::vector<double> x_lo, x_hi, x0;     // all variables
  // A warm start's multipliers (IPOPT's warm_start_init_point): of the constraints (n_constraints)
  // and of the lower and upper variable bounds (n_variables each); empty: IPOPT starts its own.
  std::vector<double> lambda0, z_lo0, z_hi0;

  // holonomic constraints at position level (n_h = 0: none, and nothing below is used)
  int n_h = 0;
  std::vector<int> hol_points, hol_rows;  // phi_{row}(z_point) = 0, one constraint per entry
  std::shared_ptr<const Tape> correction; // (z, gamma) -> [C (n_y), jac values]
  std::vector<int> corr_jac_rows, corr_jac_cols;
  std::shared_ptr<const Tape> corr_hessian;  // (z, gamma, mu (n_y)) -> lower-triangle values
  std::vector<int> corr_hess_rows, corr_hess_cols;
  std::vector<int> corr_offsets;          // per stencil: the point of its correction, in [0, step]

  int n_points() const { return step * static_cast<int>(dtau.size()) + 1; }
  int block() const { return n_y + n_u; }
  int n_outputs() const { return n_y + 1 + n_g + n_h; }  // [f, L, g, phi] of the node tape
  int n_gamma() const { return n_h > 0 ? static_cast<int>(dtau.size() * stencils.size()) * n_h : 0; }
  int n_variables() const { return n_points() * block() + n_gamma() + (free_time ? 1 : 0); }
  int n_defects() const { return static_cast<int>(dtau.size() * stencils.size()) * n_y; }
  int n_constraints() const { return n_defects() + n_points() * n_g + static_cast<int>(hol_points.size()); }
  // Throws InputError on inconsistent sizes.
  void check() const;
};

// An IPOPT option by name, set after the options above (so it overrides them). `kind` says which
// value the caller gave: a string, an integer (accepted for IPOPT's integer and number options)
// or a number; solve_collocation throws InputError naming the option when IPOPT does not know the
// name, the kind does not match the option's type, or IPOPT rejects the value.
struct IpoptOption {
  enum Kind { String, Integer, Number };
  std::string name;
  Kind kind = String;
  std::string text;
  long integer = 0;
  double number = 0.0;
};

struct CollocationOptions {
  double tol = 1e-8;
  int max_iter = 3000;
  bool exact_hessian = true;
  int print_level = 0;
  double max_wall_time = 0.0;  // seconds; 0 = none
  std::string mu_strategy = "monotone";  // IPOPT's barrier update: "monotone" or "adaptive"
  std::vector<IpoptOption> ipopt;  // passed through to IPOPT, last
  std::function<bool()> interrupted;  // polled at every IPOPT iteration: true stops the solve (Ctrl-C)
};

struct CollocationResult {
  std::vector<double> x;
  std::vector<double> constraint_multipliers;
  std::vector<double> bound_multipliers_lo, bound_multipliers_hi;  // z_L, z_U at the returned x
  double mu = 0.0;  // IPOPT's barrier parameter at the end (a warm start's mu_init)
  double objective = 0.0;
  bool success = false;
  int status = 0;
  std::string message;
  int iterations = 0;
  // IPOPT's regularization delta_w of the Hessian at its last iteration (0: the KKT matrix had the
  // inertia of a minimum; > 0: the Hessian of the Lagrangian was not positive definite on the
  // constraints' null space there, as at a saddle)
  double last_regularization = 0.0;
  int nnz_jacobian = 0, nnz_hessian = 0;
  double time_ipopt = 0.0, time_evaluations = 0.0;
  int n_evaluations = 0;
  double max_defect = 0.0;  // max |defect| at the returned x
  bool interrupted = false;  // stopped by options.interrupted
};

// Solves the problem with IPOPT (C++ interface); never throws for a failed solve (success false,
// IPOPT's status in `message`), throws InputError for an inconsistent problem.
CollocationResult solve_collocation(const CollocationProblem& problem, const CollocationOptions& options);

}  // namespace nonholo
