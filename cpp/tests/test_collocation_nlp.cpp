// The collocation NLP (ocp/collocation_nlp.hpp) through IPOPT on problems solved by hand, with
// tapes built in C++: x' = u from x(0) = 0 to x(1) = 1 with the cost int u^2/2 (u = 1, cost 1/2,
// exact for both transcriptions: the solution is linear), and in minimum time with |u| <= 1 to
// x(T) = 2 (T = 2); the multiplier-weighted Hessian is exercised by the first, the duration's
// row and column by the second. check() refuses inconsistent sizes (InputError).
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "check.hpp"
#include "nonholo/errors.hpp"
#include "nonholo/ocp/collocation_nlp.hpp"
#include "nonholo/tape/graph.hpp"

using namespace nonholo;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// z = (x, u): [f = u, L, df/du = 1, dL/du] with L = u^2/2 (energy) or 1 (time).
std::shared_ptr<const Tape> node_tape(bool energy) {
  GraphBuilder g(2);
  const int u = g.input(1);
  const int half = g.constant(0.5), one = g.constant(1.0), zero = g.constant(0.0);
  const int L = energy ? g.binary(Op::Mul, half, g.binary(Op::Mul, u, u)) : one;
  const int dL = energy ? u : zero;
  return std::make_shared<Tape>(g.finish({u, L, one, dL}));
}

// (x, u, mu_f, mu_L): d^2 (mu_L L)/du^2 = mu_L for the energy (entry (1, 1)).
std::shared_ptr<const Tape> hessian_tape() {
  GraphBuilder g(4);
  return std::make_shared<Tape>(g.finish({g.input(3)}));
}

CollocationProblem problem(bool hermite_simpson, bool energy, int intervals) {
  CollocationProblem p;
  p.n_y = 1;
  p.n_u = 1;
  p.step = hermite_simpson ? 2 : 1;
  p.dtau.assign(intervals, 1.0 / intervals);
  if (hermite_simpson) {
    p.stencils = {{{0, 1, 2}, {-1.0, 0.0, 1.0}, {1.0 / 6, 4.0 / 6, 1.0 / 6}},
                  {{0, 1, 2}, {-0.5, 1.0, -0.5}, {1.0 / 8, 0.0, -1.0 / 8}}};
    p.quad_offsets = {0, 1, 2};
    p.quad_weights = {1.0 / 6, 4.0 / 6, 1.0 / 6};
  } else {
    p.stencils = {{{0, 1}, {-1.0, 1.0}, {0.5, 0.5}}};
    p.quad_offsets = {0, 1};
    p.quad_weights = {0.5, 0.5};
  }
  p.node = node_tape(energy);
  p.jac_rows = {0, 1};
  p.jac_cols = {1, 1};
  p.hessian = hessian_tape();
  if (energy) {
    p.hess_rows = {1};
    p.hess_cols = {1};
  } else {
    GraphBuilder g(4);
    p.hessian = std::make_shared<Tape>(g.finish({}));
  }
  p.free_time = !energy;
  p.t_final = 1.0;
  const int P = p.n_points();
  const double goal = energy ? 1.0 : 2.0;
  for (int q = 0; q < P; ++q) {
    const double s = static_cast<double>(q) / (P - 1);
    p.x_lo.insert(p.x_lo.end(), {-kInf, energy ? -kInf : -1.0});
    p.x_hi.insert(p.x_hi.end(), {kInf, energy ? kInf : 1.0});
    p.x0.insert(p.x0.end(), {goal * s, 0.3});
  }
  p.x_lo[0] = p.x_hi[0] = 0.0;
  p.x_lo[2 * (P - 1)] = p.x_hi[2 * (P - 1)] = goal;
  if (!energy) {
    p.x_lo.push_back(1e-6);
    p.x_hi.push_back(kInf);
    p.x0.push_back(5.0);
  }
  return p;
}

}  // namespace

int main() {
  CollocationOptions options;
  options.tol = 1e-10;
  for (bool hs : {false, true}) {
    CollocationResult energy = solve_collocation(problem(hs, true, 5), options);
    NONHOLO_CHECK(energy.success);
    NONHOLO_CHECK(std::abs(energy.objective - 0.5) < 1e-9);
    for (std::size_t i = 1; i < energy.x.size(); i += 2) NONHOLO_CHECK(std::abs(energy.x[i] - 1.0) < 1e-7);
    NONHOLO_CHECK(energy.max_defect < 1e-9);
    NONHOLO_CHECK(energy.nnz_hessian == (hs ? 11 : 6));

    CollocationResult time = solve_collocation(problem(hs, false, 5), options);
    NONHOLO_CHECK(time.success);
    NONHOLO_CHECK(std::abs(time.objective - 2.0) < 1e-7);
    NONHOLO_CHECK(std::abs(time.x.back() - 2.0) < 1e-7);
  }
  CollocationProblem bad = problem(true, true, 5);
  bad.x0.pop_back();
  bool thrown = false;
  try {
    solve_collocation(bad, options);
  } catch (const InputError&) {
    thrown = true;
  }
  NONHOLO_CHECK(thrown);

  // IPOPT options by name: a valid one changes nothing in the optimum; an unknown name, a value
  // of the wrong kind and a value IPOPT refuses each throw InputError naming the option.
  CollocationOptions adaptive = options;
  adaptive.ipopt.push_back({"mu_strategy", IpoptOption::String, "adaptive", 0, 0.0});
  adaptive.ipopt.push_back({"mu_init", IpoptOption::Integer, "", 1, 0.0});
  CollocationResult passed = solve_collocation(problem(true, false, 5), adaptive);
  NONHOLO_CHECK(passed.success);
  NONHOLO_CHECK(std::abs(passed.objective - 2.0) < 1e-7);
  const std::vector<IpoptOption> refused = {{"no_such_option", IpoptOption::Number, "", 0, 1.0},
                                            {"mu_strategy", IpoptOption::Number, "", 0, 1.0},
                                            {"mu_strategy", IpoptOption::String, "sideways", 0, 0.0},
                                            {"max_iter", IpoptOption::Number, "", 0, 2.5},
                                            {"mu_init", IpoptOption::Number, "", 0, -1.0}};
  for (const IpoptOption& o : refused) {
    CollocationOptions with = options;
    with.ipopt.push_back(o);
    std::string message;
    try {
      solve_collocation(problem(true, false, 5), with);
    } catch (const InputError& e) {
      message = e.what();
    }
    NONHOLO_CHECK(message.find("'" + o.name + "'") != std::string::npos);
  }
  return nonholo::testing::failures;
}
