// The interval NLP (ocp/interval_nlp.hpp) through IPOPT on DMOC of x'' = u, with tapes built in C++:
// node variables z = (x, u), one equation per node, the interval's tape over (x0, u0, x1, u1, h)
//   l = h/2 u_m - (x1 - x0)/h,   r = h/2 u_m + (x1 - x0)/h,   J = h/4 (u0^2 + u1^2)   (u_m = (u0 + u1)/2),
// the discrete Lagrange-d'Alembert equations of L = v^2/2 with the force u. From rest at 0 to rest
// at 1 in t = 1 with int u^2/2 the continuous cost is 6; DMOC's at 20 intervals is 6.0583112457
// (the pushed knife edge of tests/test_ocp_dmoc.py: the same discrete equations along its blade),
// and the discrete equations hold at the solver's tolerance. A free end (no equation at the last
// node) from rest with no control leaves the particle at rest. check() refuses inconsistent sizes.
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "check.hpp"
#include "nonholo/errors.hpp"
#include "nonholo/ocp/interval_nlp.hpp"
#include "nonholo/tape/graph.hpp"

using namespace nonholo;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TapedFunction interval_function() {
  GraphBuilder g(5);
  const int x0 = g.input(0), u0 = g.input(1), x1 = g.input(2), u1 = g.input(3), h = g.input(4);
  const int half = g.constant(0.5), quarter = g.constant(0.25);
  const int um = g.binary(Op::Mul, half, g.binary(Op::Add, u0, u1));
  const int hu = g.binary(Op::Mul, g.binary(Op::Mul, half, h), um);
  const int v = g.binary(Op::Div, g.binary(Op::Sub, x1, x0), h);
  const int l = g.binary(Op::Sub, hu, v), r = g.binary(Op::Add, hu, v);
  const int hq = g.binary(Op::Mul, quarter, h);
  const int J = g.binary(Op::Mul, hq, g.binary(Op::Add, g.binary(Op::Mul, u0, u0), g.binary(Op::Mul, u1, u1)));
  const int inv_h = g.binary(Op::Div, g.constant(1.0), h), minus_inv_h = g.unary(Op::Neg, inv_h);
  const int half_h = g.binary(Op::Mul, half, h);
  TapedFunction f;
  // d/dx0, d/du0, d/dx1, d/du1 of l and r; dJ/du0, dJ/du1 (the duration is fixed: no h column)
  f.values = std::make_shared<Tape>(g.finish({l, r, J, inv_h, hq, minus_inv_h, hq, minus_inv_h, hq, inv_h, hq,
                                              g.binary(Op::Mul, half_h, u0), g.binary(Op::Mul, half_h, u1)}));
  f.jac_rows = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2};
  f.jac_cols = {0, 1, 2, 3, 0, 1, 2, 3, 1, 3};
  GraphBuilder gh(5 + 3);
  const int wJ_h = gh.binary(Op::Mul, gh.binary(Op::Mul, gh.constant(0.5), gh.input(4)), gh.input(7));
  f.hessian = std::make_shared<Tape>(gh.finish({wJ_h, wJ_h}));
  f.hess_rows = {1, 3};
  f.hess_cols = {1, 3};
  return f;
}

TapedFunction node_function() {  // no node term: s = 0
  GraphBuilder g(2);
  TapedFunction f;
  f.values = std::make_shared<Tape>(g.finish({g.constant(0.0)}));
  GraphBuilder gh(3);
  f.hessian = std::make_shared<Tape>(gh.finish({}));
  return f;
}

IntervalProblem problem(int intervals, bool free_end) {
  IntervalProblem p;
  p.n_z = 2;
  p.n_r = 1;
  p.dtau.assign(intervals, 1.0 / intervals);
  p.t_final = 1.0;
  p.interval = interval_function();
  p.node = node_function();
  p.first_rows = {0.0};  // the initial momentum: at rest
  p.last_rows = {0.0};   // minus the final momentum: at rest
  p.last_imposed = !free_end;
  for (int q = 0; q <= intervals; ++q) {
    const double s = static_cast<double>(q) / intervals;
    p.x_lo.insert(p.x_lo.end(), {-kInf, free_end ? 0.0 : -kInf});
    p.x_hi.insert(p.x_hi.end(), {kInf, free_end ? 0.0 : kInf});
    p.x0.insert(p.x0.end(), {free_end ? 0.3 * s : s, 0.0});
  }
  p.x_lo[0] = p.x_hi[0] = 0.0;
  if (!free_end) p.x_lo[2 * intervals] = p.x_hi[2 * intervals] = 1.0;
  return p;
}

}  // namespace

int main() {
  CollocationOptions options;
  options.tol = 1e-10;
  IntervalProblem push = problem(20, false);
  CollocationResult r = solve_interval_nlp(push, options);
  NONHOLO_CHECK(r.success);
  NONHOLO_CHECK(std::abs(r.objective - 6.0583112457) < 1e-8);
  NONHOLO_CHECK(r.max_defect < 1e-9);
  NONHOLO_CHECK(std::abs(r.x[2 * 20] - 1.0) < 1e-12);
  NONHOLO_CHECK_EQ(push.n_constraints(), 21);
  NONHOLO_CHECK(r.nnz_hessian == 21);  // u_k's diagonal at every node

  IntervalProblem rest = problem(10, true);
  NONHOLO_CHECK_EQ(rest.n_constraints(), 10);  // no equation at the free end
  CollocationResult still = solve_interval_nlp(rest, options);
  NONHOLO_CHECK(still.success);
  for (int q = 0; q <= 10; ++q) NONHOLO_CHECK(std::abs(still.x[2 * q]) < 1e-9);

  IntervalProblem bad = problem(5, false);
  bad.first_rows.clear();
  bool thrown = false;
  try {
    solve_interval_nlp(bad, options);
  } catch (const InputError&) {
    thrown = true;
  }
  NONHOLO_CHECK(thrown);
  return nonholo::testing::failures;
}
