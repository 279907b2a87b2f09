#include <memory>

#include <pybind11/eigen.h>

#include "bindings.hpp"
#include "nonholo/errors.hpp"
#include "nonholo/mechanical_system.hpp"
#include "nonholo/point_geometry.hpp"
#include "nonholo/slow_manifold.hpp"

using namespace nonholo;

namespace {

std::unique_ptr<PointGeometry> point_geometry(const MechanicalSystem& sys, double t, py::handle q, py::handle v,
                                              py::handle p) {
  std::vector<double> qv = as_vector(q, sys.n(), "q");
  std::vector<double> vv = v.is_none() ? std::vector<double>(sys.n(), 0.0) : as_vector(v, sys.n(), "v");
  std::vector<double> pv = as_vector(p, sys.n_params(), "params");
  for (double x : qv)
    if (!std::isfinite(x)) throw py::value_error("q contains NaN or inf");
  for (double x : vv)
    if (!std::isfinite(x)) throw py::value_error("v contains NaN or inf");
  return std::make_unique<PointGeometry>(sys, t, qv.data(), vv.data(), pv.data());
}

}  // namespace

void expose_system(py::module_& m) {
  // PointGeometry first, so that MechanicalSystem.at's signature names a known Python type.
  py::class_<PointGeometry>(m, "PointGeometry")
      .def("metric", &PointGeometry::metric)
      .def("christoffel", [](const PointGeometry& g) {
        std::vector<double> gamma = g.christoffel();
        py::ssize_t n = static_cast<py::ssize_t>(std::cbrt(static_cast<double>(gamma.size())) + 0.5);
        return to_numpy(gamma.data(), {n, n, n});
      })
      .def("constraint_matrix", &PointGeometry::constraint_matrix)
      .def("affine", &PointGeometry::affine)
      .def("friction_coefficients", &PointGeometry::friction_coefficients)
      .def("force", &PointGeometry::force)
      .def("potential", &PointGeometry::potential)
      .def("kinetic_energy", &PointGeometry::kinetic_energy)
      .def("p", &PointGeometry::p)
      .def("p_perp", &PointGeometry::p_perp)
      .def("friction_operator", &PointGeometry::friction_operator)
      .def("qmat", &PointGeometry::qmat)
      .def("multipliers", &PointGeometry::multipliers)
      .def("nonholonomic_acceleration", &PointGeometry::nonholonomic_acceleration)
      .def("project", &PointGeometry::project);

  py::class_<MechanicalSystem, std::shared_ptr<MechanicalSystem>>(
      m, "MechanicalSystem",
      "Metric, potential, constraints, friction and force of one system, compiled to a tape "
      "with their derivatives (by forward-mode AD of the expression graph).")
      .def(py::init([](int n, int k, int n_params, ExprGraph graph, bool definite_metric, const std::string& velocity_terms) {
             VelocityTerms terms = VelocityTerms::Cheaper;
             if (velocity_terms == "partials") terms = VelocityTerms::Partials;
             else if (velocity_terms == "sweeps") terms = VelocityTerms::Sweeps;
             else if (velocity_terms == "given") terms = VelocityTerms::Given;
             else if (velocity_terms != "cheaper")
               throw InputError("velocity_terms must be 'cheaper', 'partials', 'sweeps' or 'given', got '" + velocity_terms + "'");
             return std::make_shared<MechanicalSystem>(n, k, n_params, std::move(graph), definite_metric, terms);
           }),
           py::arg("n"), py::arg("k"), py::arg("n_params"), py::arg("graph"), py::arg("definite_metric") = true,
           py::arg("velocity_terms") = "cheaper",
           "velocity_terms: how c(q, v) and (dA/dq . v) v are computed, equal to rounding: 'partials' (from "
           "dG/dq^l, dA/dq^l), 'sweeps' (one forward and one backward sweep) or 'cheaper' (the sweeps where they "
           "have a tenth fewer operations at least); 'given': the graph has n more outputs after F, r = F - c(q, v) - dV in a cheaper "
           "form, which the tapes use. Systems of more than 40 coordinates build their tapes when first used, r and a by the sweeps unless given.")
      .def_property_readonly("definite_metric", &MechanicalSystem::definite_metric)
      .def_property_readonly("n", &MechanicalSystem::n)
      .def_property_readonly("sparse_density", [](const MechanicalSystem& s) {
        const GeometryLayout& L = s.layout();
        return SparseLayout::from_base(s.base_graph(), L.n, L.k, L.G, L.A, L.mu).density();
      }, "Structural nonzeros of G, A and mu over their dense sizes")
      .def_property_readonly("k", &MechanicalSystem::k)
      .def_property_readonly("n_params", &MechanicalSystem::n_params)
      .def_property_readonly("n_inputs", &MechanicalSystem::n_inputs)
      .def_property_readonly("tape_instructions", [](const MechanicalSystem& s) { return s.tape().n_instructions(); })
      .def_property_readonly("tape_slots", [](const MechanicalSystem& s) { return s.tape().n_slots(); })
      .def("disassemble", [](const MechanicalSystem& s) { return s.tape().disassemble(); })
      .def_property_readonly("force_depends_on_velocity", &MechanicalSystem::force_depends_on_velocity)
      .def_property_readonly("force_depends_on_time", &MechanicalSystem::force_depends_on_time)
      .def_property_readonly("affine_depends_on_time", &MechanicalSystem::affine_depends_on_time)
      .def_property_readonly("has_affine", &MechanicalSystem::has_affine)
      .def_property_readonly("velocity_sweeps", &MechanicalSystem::velocity_sweeps)
      .def("slip", [](const MechanicalSystem& sys, double t, py::handle q, py::handle u, py::handle p, int order) {
        auto qv = as_vector(q, sys.n(), "q");
        auto uv = as_vector(u, sys.n(), "u");
        auto pv = as_vector(p, sys.n_params(), "params");
        SlowManifoldWork<double> w;
        MatX<double> coeffs;
        slip_coefficients(sys, t, qv.data(), uv.data(), pv.data(), order, w, coeffs);
        MatX<double> rows = coeffs.transpose();  // (order, n): row k-1 is h^(k)
        return rows;
      }, py::arg("t"), py::arg("q"), py::arg("u"), py::arg("params"), py::arg("order"),
         "h^(1..order) at (t, q, u), shape (order, n), by Taylor arithmetic in (eps, t).")
      .def("fibre_base", [](const MechanicalSystem& sys, double t, py::handle q, py::handle v, py::handle p,
                            double eps, int order) {
        auto qv = as_vector(q, sys.n(), "q");
        auto vv = as_vector(v, sys.n(), "v");
        auto pv = as_vector(p, sys.n_params(), "params");
        FibreBase base = fibre_base(sys, t, qv.data(), vv.data(), pv.data(), eps, order);
        return py::make_tuple(VecX<double>(base.q), VecX<double>(base.u));
      }, py::arg("t"), py::arg("q"), py::arg("v"), py::arg("params"), py::arg("eps"), py::arg("order"))
      .def("at", &point_geometry, py::arg("t"), py::arg("q"), py::arg("v"), py::arg("params"),
           py::keep_alive<0, 1>(), "Geometric objects at one point (t, q, v).");
}
