// An NLP whose equations couple neighbouring nodes through one function per interval, solved by
// IPOPT from tapes: the transcription of discrete mechanics (DMOC, the discrete
// Lagrange-d'Alembert equations), where each interval contributes to the equations of both of its
// nodes.
//
// Nodes q = 0 .. N (N intervals), each with a block of variables z_q (n_z entries); the duration T
// is one more variable when it is free (last in x). Interval k (fraction dtau_k, step
// h_k = T dtau_k) has one tape over (z_k, z_{k+1}, h_k) giving
//   [l (n_r), r (n_r), c (n_c), J_k (1), then the values of its sparse Jacobian],
// each node one tape over z_q giving [s (n_r), g (n_g), then its Jacobian values]. The NLP is
//   minimize   sum_k J_k
//   subject to E_q = r_{q-1} + l_q + s_q + e_q = 0   at each imposed node q   (n_r rows each)
//              c_lo <= c_k <= c_hi                    on each interval
//              g_lo <= g_q <= g_hi                    at each node,
// with r_{-1} = l_N = 0 and e_q the constant rows `first_rows` at q = 0, `last_rows` at q = N (zero
// elsewhere). A node whose rows are not imposed (an end with a free momentum) has no E_q rows.
// Each tape's Hessian tape takes its inputs and the weights of its outputs ([l, r, c, J] or
// [s, g]) and gives the lower triangle of the weighted sum's second derivatives on its pattern;
// the step h's row and column enter through dh_k/dT = dtau_k when T is free.
#pragma once

#include <memory>
#include <vector>

#include "nonholo/ocp/collocation_nlp.hpp"
#include "nonholo/tape/tape.hpp"

namespace nonholo {

// A tape with its sparse Jacobian (values appended to its outputs) and the Hessian tape of the
// weighted sum of its outputs.
struct TapedFunction {
  std::shared_ptr<const Tape> values;     // inputs -> [F, jac values]
  std::vector<int> jac_rows, jac_cols;
  std::shared_ptr<const Tape> hessian;    // (inputs, weights of F) -> lower-triangle values
  std::vector<int> hess_rows, hess_cols;
};

struct IntervalProblem {
  int n_z = 0;   // variables per node
  int n_r = 0;   // equations per node
  int n_c = 0;   // constraints per interval
  int n_g = 0;   // constraints per node
  std::vector<double> dtau;  // per interval, sums to 1
  bool free_time = false;
  double t_final = 1.0;      // the duration when fixed

  TapedFunction interval;    // (z_k, z_{k+1}, h) -> [l, r, c, J]
  TapedFunction node;        // z_q -> [s, g]
  std::vector<double> first_rows, last_rows;  // n_r each: e_0 and e_N
  bool first_imposed = true, last_imposed = true;

  std::vector<double> c_lo, c_hi, g_lo, g_hi;
  std::vector<double> x_lo, x_hi, x0;

  int n_intervals() const { return static_cast<int>(dtau.size()); }
  int n_nodes() const { return n_intervals() + 1; }
  int n_variables() const { return n_nodes() * n_z + (free_time ? 1 : 0); }
  int n_equation_nodes() const { return n_nodes() - (first_imposed ? 0 : 1) - (last_imposed ? 0 : 1); }
  int n_constraints() const { return n_equation_nodes() * n_r + n_intervals() * n_c + n_nodes() * n_g; }
  // Throws InputError on inconsistent sizes.
  void check() const;
};

// Solves the problem with IPOPT; never throws for a failed solve (success false, IPOPT's status in
// `message`; `max_defect` the largest |E_q| and |c_k| outside its bounds), throws InputError for an
// inconsistent problem or an option IPOPT refuses.
CollocationResult solve_interval_nlp(const IntervalProblem& problem, const CollocationOptions& options);

}  // namespace nonholo
