#include <memory>

#include "bindings.hpp"
#include "nonholo/discrete.hpp"

using namespace nonholo;

namespace {

py::array_t<double> columns(const std::vector<double>& time_major, py::ssize_t rows) {
  const py::ssize_t cols = rows == 0 ? 0 : static_cast<py::ssize_t>(time_major.size()) / rows;
  py::array_t<double> out({rows, cols});
  auto o = out.mutable_unchecked<2>();
  for (py::ssize_t c = 0; c < cols; ++c)
    for (py::ssize_t r = 0; r < rows; ++r) o(r, c) = time_major[c * rows + r];
  return out;
}

}  // namespace

void expose_discrete(py::module_& m) {
  py::class_<DiscreteIntegrator, std::shared_ptr<DiscreteIntegrator>>(
      m, "DiscreteIntegrator", "Midpoint discrete Lagrange-d'Alembert integrator with step h.")
      .def(py::init<std::shared_ptr<const MechanicalSystem>, double>(), py::arg("system"), py::arg("h"))
      .def_property_readonly("h", &DiscreteIntegrator::h)
      .def("step", [](const DiscreteIntegrator& d, double t, py::handle q, py::handle p, py::handle params,
                      py::handle lambda0, double newton_tol, int max_iterations) {
        const auto& sys = d.system();
        auto qv = as_vector(q, sys.n(), "q");
        auto pv = as_vector(p, sys.n(), "p");
        auto par = as_vector(params, sys.n_params(), "params");
        auto lam = lambda0.is_none() ? std::vector<double>(sys.k(), 0.0) : as_vector(lambda0, sys.k(), "lambda");
        std::vector<double> qn(sys.n()), pn(sys.n());
        DiscreteOptions o;
        o.newton_tol = newton_tol;
        o.max_newton_iterations = max_iterations;
        int it = d.step(t, qv.data(), pv.data(), par.data(), qn.data(), pn.data(), lam.data(), o);
        return py::make_tuple(to_numpy(qn.data(), {sys.n()}), to_numpy(pn.data(), {sys.n()}),
                              to_numpy(lam.data(), {sys.k()}), it);
      }, py::arg("t"), py::arg("q"), py::arg("p"), py::arg("params"), py::arg("lambda0") = py::none(),
         py::arg("newton_tol") = 1e-14, py::arg("max_newton_iterations") = 50,
         "One step from (t, q_k, p_k): (q_{k+1}, p_{k+1}, lambda_k, Newton iterations).");

  m.def("integrate_discrete",
        [](const DiscreteIntegrator& d, py::handle params, double t0, long n_steps, py::handle q0, py::handle v0,
           double newton_tol, int max_iterations, double max_wall_time, const py::object& cancel) {
          const auto& sys = d.system();
          auto par = as_vector(params, sys.n_params(), "params");
          auto q = as_vector(q0, sys.n(), "q0");
          auto v = as_vector(v0, sys.n(), "v0");
          DiscreteOptions o;
          o.newton_tol = newton_tol;
          o.max_newton_iterations = max_iterations;
          o.max_wall_time = max_wall_time;
          InterruptCheck interrupted = interrupt_check(cancel);
          DiscreteOutput out;
          {
            py::gil_scoped_release release;
            out = d.run(q, v, par, t0, n_steps, o, interrupted);
          }
          if (out.interrupted) throw py::error_already_set();
          py::dict r;
          r["t"] = to_numpy(out.t.data(), {static_cast<py::ssize_t>(out.t.size())});
          r["q"] = columns(out.q, out.n);
          r["v"] = columns(out.v, out.n);
          r["p"] = columns(out.p, out.n);
          r["lambda"] = columns(out.lambda, out.k);
          r["status"] = out.status;
          r["message"] = out.message;
          r["t_last"] = out.t_last;
          r["newton_iterations"] = out.newton_iterations;
          r["max_constraint_residual"] = out.max_constraint_residual;
          r["cpu_time"] = out.cpu_time;
          return r;
        },
        py::arg("integrator"), py::arg("params"), py::arg("t0"), py::arg("n_steps"), py::arg("q0"), py::arg("v0"),
        py::arg("newton_tol"), py::arg("max_newton_iterations"), py::arg("max_wall_time"),
        py::arg("cancel") = py::none());
}
