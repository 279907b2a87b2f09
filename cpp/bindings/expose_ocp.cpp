// nonholo._core.solve_collocation and solve_interval_nlp: the NLPs of an optimal control problem
// (collocation; the discrete mechanics of DMOC), solved by IPOPT in C++ with the GIL released (no
// Python runs per iteration).
#include "bindings.hpp"
#include "nonholo/ocp/collocation_nlp.hpp"
#include "nonholo/ocp/interval_nlp.hpp"
#include "nonholo/ocp/point_derivatives.hpp"

using namespace nonholo;

namespace {

std::vector<CollocationStencil> stencils_from(const py::list& items) {
  std::vector<CollocationStencil> out;
  for (py::handle item : items) {
    auto t = item.cast<py::tuple>();
    if (t.size() != 3) throw py::value_error("a stencil is (offsets, a, b)");
    out.push_back({t[0].cast<std::vector<int>>(), t[1].cast<std::vector<double>>(), t[2].cast<std::vector<double>>()});
  }
  return out;
}

// (name, value) pairs -> IPOPT options; the value's Python type gives the kind (bool refused:
// IPOPT's yes/no options take the strings "yes" and "no").
std::vector<IpoptOption> ipopt_options_from(const py::list& items) {
  std::vector<IpoptOption> out;
  for (py::handle item : items) {
    auto t = item.cast<py::tuple>();
    if (t.size() != 2) throw py::value_error("an IPOPT option is (name, value)");
    IpoptOption o;
    o.name = t[0].cast<std::string>();
    py::handle v = t[1];
    if (py::isinstance<py::str>(v)) {
      o.kind = IpoptOption::String;
      o.text = v.cast<std::string>();
    } else if (py::isinstance<py::bool_>(v)) {
      throw py::value_error("ipopt_options['" + o.name + "'] must be a string, an integer or a number, not a bool");
    } else if (py::isinstance<py::int_>(v)) {
      o.kind = IpoptOption::Integer;
      o.integer = v.cast<long>();
    } else if (py::isinstance<py::float_>(v)) {
      o.kind = IpoptOption::Number;
      o.number = v.cast<double>();
    } else {
      throw py::value_error("ipopt_options['" + o.name + "'] must be a string, an integer or a number, got " +
                            std::string(py::str(py::type::of(v).attr("__name__"))));
    }
    out.push_back(std::move(o));
  }
  return out;
}

// (tape, jac_rows, jac_cols, hessian, hess_rows, hess_cols) -> TapedFunction
TapedFunction taped_from(const py::tuple& t, const char* what) {
  if (t.size() != 6)
    throw py::value_error(std::string(what) + " must be (tape, jac_rows, jac_cols, hessian, hess_rows, hess_cols)");
  TapedFunction f;
  f.values = t[0].cast<std::shared_ptr<Tape>>();
  f.jac_rows = t[1].cast<std::vector<int>>();
  f.jac_cols = t[2].cast<std::vector<int>>();
  f.hessian = t[3].cast<std::shared_ptr<Tape>>();
  f.hess_rows = t[4].cast<std::vector<int>>();
  f.hess_cols = t[5].cast<std::vector<int>>();
  return f;
}

CollocationOptions options_from(double tol, int max_iter, bool exact_hessian, int print_level, double max_wall_time,
                                std::string mu_strategy, const py::list& ipopt_options) {
  CollocationOptions o;
  o.tol = tol;
  o.max_iter = max_iter;
  o.exact_hessian = exact_hessian;
  o.print_level = print_level;
  o.max_wall_time = max_wall_time;
  o.mu_strategy = std::move(mu_strategy);
  o.ipopt = ipopt_options_from(ipopt_options);
  return o;
}

py::dict result_dict(const CollocationResult& r, int n_variables, int n_constraints) {
  py::dict out;
  out["x"] = to_numpy(r.x.data(), {static_cast<py::ssize_t>(r.x.size())});
  out["multipliers"] =
      to_numpy(r.constraint_multipliers.data(), {static_cast<py::ssize_t>(r.constraint_multipliers.size())});
  out["bound_multipliers_lo"] =
      to_numpy(r.bound_multipliers_lo.data(), {static_cast<py::ssize_t>(r.bound_multipliers_lo.size())});
  out["bound_multipliers_hi"] =
      to_numpy(r.bound_multipliers_hi.data(), {static_cast<py::ssize_t>(r.bound_multipliers_hi.size())});
  out["mu"] = r.mu;
  out["objective"] = r.objective;
  out["success"] = r.success;
  out["status"] = r.status;
  out["message"] = r.message;
  out["iterations"] = r.iterations;
  out["last_regularization"] = r.last_regularization;
  out["n_variables"] = n_variables;
  out["n_constraints"] = n_constraints;
  out["nnz_jacobian"] = r.nnz_jacobian;
  out["nnz_hessian"] = r.nnz_hessian;
  out["time_ipopt"] = r.time_ipopt;
  out["time_evaluations"] = r.time_evaluations;
  out["n_evaluations"] = r.n_evaluations;
  out["max_defect"] = r.max_defect;
  return out;
}

// Solves `p` by `solve` (solve_collocation or solve_interval_nlp) without the GIL, Ctrl-C stopping
// IPOPT at its next iteration; the result as a dict.
template <class Problem, class Solve>
py::dict solve_without_gil(const Problem& p, CollocationOptions o, Solve solve) {
  const py::object no_cancel = py::none();  // outlives the solve: interrupt_check keeps a reference
  o.interrupted = interrupt_check(no_cancel);
  CollocationResult r;
  {
    py::gil_scoped_release release;
    r = solve(p, o);
  }
  if (r.interrupted) throw py::error_already_set();  // the KeyboardInterrupt PyErr_CheckSignals set
  return result_dict(r, p.n_variables(), p.n_constraints());
}

}  // namespace

void expose_ocp(py::module_& m) {
  m.def(
      "point_derivatives",
      [](const ExprGraph& g) {
        PointDerivatives d = point_derivatives(g);
        return py::make_tuple(std::move(d.node), d.jac_rows, d.jac_cols, std::move(d.hessian), d.hess_rows,
                              d.hess_cols);
      },
      py::arg("graph"),
      "(node, jac_rows, jac_cols, hessian, hess_rows, hess_cols) of a collocation point's outputs F(z): the "
      "graph of [F, the nonzeros of dF/dz] and that of the lower triangle of sum_o mu_o d2F_o/dz2 (inputs z, mu), "
      "by automatic differentiation on the graph.");
  m.def(
      "solve_collocation",
      [](int n_y, int n_u, int n_g, int step, std::vector<double> dtau, const py::list& stencils,
         std::vector<int> quad_offsets, std::vector<double> quad_weights, bool free_time, double t_final,
         std::shared_ptr<Tape> node, std::vector<int> jac_rows, std::vector<int> jac_cols,
         std::shared_ptr<Tape> hessian, std::vector<int> hess_rows, std::vector<int> hess_cols,
         std::shared_ptr<Tape> terminal, std::vector<int> term_hess_rows, std::vector<int> term_hess_cols,
         std::vector<double> g_lo, std::vector<double> g_hi, std::vector<double> x_lo, std::vector<double> x_hi,
         std::vector<double> x0, double tol, int max_iter, bool exact_hessian, int print_level, double max_wall_time,
         std::string mu_strategy, const py::list& ipopt_options, const py::object& holonomic,
         const py::object& multipliers) {
        CollocationProblem p;
        p.n_y = n_y;
        p.n_u = n_u;
        p.n_g = n_g;
        p.step = step;
        p.dtau = std::move(dtau);
        p.stencils = stencils_from(stencils);
        p.quad_offsets = std::move(quad_offsets);
        p.quad_weights = std::move(quad_weights);
        p.free_time = free_time;
        p.t_final = t_final;
        p.node = std::move(node);
        p.jac_rows = std::move(jac_rows);
        p.jac_cols = std::move(jac_cols);
        p.hessian = std::move(hessian);
        p.hess_rows = std::move(hess_rows);
        p.hess_cols = std::move(hess_cols);
        p.terminal = std::move(terminal);
        p.term_hess_rows = std::move(term_hess_rows);
        p.term_hess_cols = std::move(term_hess_cols);
        p.g_lo = std::move(g_lo);
        p.g_hi = std::move(g_hi);
        p.x_lo = std::move(x_lo);
        p.x_hi = std::move(x_hi);
        p.x0 = std::move(x0);
        if (!holonomic.is_none()) {  // (n_h, points, rows, correction (a 6-tuple as taped_from's), offsets)
          auto t = holonomic.cast<py::tuple>();
          if (t.size() != 5) throw py::value_error("holonomic must be (n_h, points, rows, correction, offsets)");
          p.n_h = t[0].cast<int>();
          p.hol_points = t[1].cast<std::vector<int>>();
          p.hol_rows = t[2].cast<std::vector<int>>();
          TapedFunction c = taped_from(t[3].cast<py::tuple>(), "correction");
          p.correction = std::move(c.values);
          p.corr_jac_rows = std::move(c.jac_rows);
          p.corr_jac_cols = std::move(c.jac_cols);
          p.corr_hessian = std::move(c.hessian);
          p.corr_hess_rows = std::move(c.hess_rows);
          p.corr_hess_cols = std::move(c.hess_cols);
          p.corr_offsets = t[4].cast<std::vector<int>>();
        }
        if (!multipliers.is_none()) {  // a warm start's (lambda, z_lo, z_hi)
          auto t = multipliers.cast<py::tuple>();
          if (t.size() != 3) throw py::value_error("multipliers must be (lambda, z_lo, z_hi)");
          p.lambda0 = t[0].cast<std::vector<double>>();
          p.z_lo0 = t[1].cast<std::vector<double>>();
          p.z_hi0 = t[2].cast<std::vector<double>>();
        }
        return solve_without_gil(p,
                                 options_from(tol, max_iter, exact_hessian, print_level, max_wall_time,
                                              std::move(mu_strategy), ipopt_options),
                                 [](const auto& problem, const CollocationOptions& o) { return solve_collocation(problem, o); });
      },
      py::arg("n_y"), py::arg("n_u"), py::arg("n_g"), py::arg("step"), py::arg("dtau"), py::arg("stencils"),
      py::arg("quad_offsets"), py::arg("quad_weights"), py::arg("free_time"), py::arg("t_final"), py::arg("node"),
      py::arg("jac_rows"), py::arg("jac_cols"), py::arg("hessian"), py::arg("hess_rows"), py::arg("hess_cols"),
      py::arg("terminal"), py::arg("term_hess_rows"), py::arg("term_hess_cols"), py::arg("g_lo"), py::arg("g_hi"),
      py::arg("x_lo"), py::arg("x_hi"), py::arg("x0"), py::arg("tol"), py::arg("max_iter"), py::arg("exact_hessian"),
      py::arg("print_level"), py::arg("max_wall_time"), py::arg("mu_strategy") = "monotone",
      py::arg("ipopt_options") = py::list(), py::arg("holonomic") = py::none(), py::arg("multipliers") = py::none(),
      "Solve a collocation NLP (nonholo/ocp/collocation_nlp.hpp) with IPOPT; returns a dict of arrays and stats.");

  m.def(
      "solve_interval_nlp",
      [](int n_z, int n_r, int n_c, int n_g, std::vector<double> dtau, bool free_time, double t_final,
         const py::tuple& interval, const py::tuple& node, std::vector<double> first_rows,
         std::vector<double> last_rows, bool first_imposed, bool last_imposed, std::vector<double> c_lo,
         std::vector<double> c_hi, std::vector<double> g_lo, std::vector<double> g_hi, std::vector<double> x_lo,
         std::vector<double> x_hi, std::vector<double> x0, double tol, int max_iter, bool exact_hessian,
         int print_level, double max_wall_time, std::string mu_strategy, const py::list& ipopt_options) {
        IntervalProblem p;
        p.n_z = n_z;
        p.n_r = n_r;
        p.n_c = n_c;
        p.n_g = n_g;
        p.dtau = std::move(dtau);
        p.free_time = free_time;
        p.t_final = t_final;
        p.interval = taped_from(interval, "interval");
        p.node = taped_from(node, "node");
        p.first_rows = std::move(first_rows);
        p.last_rows = std::move(last_rows);
        p.first_imposed = first_imposed;
        p.last_imposed = last_imposed;
        p.c_lo = std::move(c_lo);
        p.c_hi = std::move(c_hi);
        p.g_lo = std::move(g_lo);
        p.g_hi = std::move(g_hi);
        p.x_lo = std::move(x_lo);
        p.x_hi = std::move(x_hi);
        p.x0 = std::move(x0);
        return solve_without_gil(p,
                                 options_from(tol, max_iter, exact_hessian, print_level, max_wall_time,
                                              std::move(mu_strategy), ipopt_options),
                                 [](const auto& problem, const CollocationOptions& o) { return solve_interval_nlp(problem, o); });
      },
      py::arg("n_z"), py::arg("n_r"), py::arg("n_c"), py::arg("n_g"), py::arg("dtau"), py::arg("free_time"),
      py::arg("t_final"), py::arg("interval"), py::arg("node"), py::arg("first_rows"), py::arg("last_rows"),
      py::arg("first_imposed"), py::arg("last_imposed"), py::arg("c_lo"), py::arg("c_hi"), py::arg("g_lo"),
      py::arg("g_hi"), py::arg("x_lo"), py::arg("x_hi"), py::arg("x0"), py::arg("tol"), py::arg("max_iter"),
      py::arg("exact_hessian"), py::arg("print_level"), py::arg("max_wall_time"), py::arg("mu_strategy") = "monotone",
      py::arg("ipopt_options") = py::list(),
      "Solve an interval NLP (nonholo/ocp/interval_nlp.hpp: the discrete mechanics of DMOC) with IPOPT; returns "
      "a dict of arrays and stats.");
}
