#include <memory>

#include <pybind11/eigen.h>

#include "bindings.hpp"
#include "nonholo/models.hpp"

using namespace nonholo;

void expose_frames(py::module_& m) {
  py::class_<Frame, std::shared_ptr<Frame>>(m, "Frame", "An anholonomic frame X(q) adapted to D, with dX/dq by AD.")
      .def(py::init<std::shared_ptr<const MechanicalSystem>, ExprGraph>(), py::arg("system"), py::arg("graph"))
      .def(py::init<std::shared_ptr<const MechanicalSystem>, std::vector<int>>(), py::arg("system"), py::arg("solved"),
           "The Voronets frame of the split solving the constraints for the coordinates `solved` (increasing "
           "indices), evaluated numerically: B = -A_s^-1 A_r by LU, dB/dq by implicit differentiation.")
      .def_static("kane_speeds", &Frame::kane_speeds, py::arg("system"), py::arg("graph"), py::arg("offset"),
                  "Kane's speeds frame from the outputs J (n*n), q0 (n), C (k*n), f (k) of `graph` "
                  "(q' = J u + q0, C u + f = 0, u = (u_ind, u_dep)), evaluated numerically: u_dep by a "
                  "pivoted LU of C_dep, derivatives by implicit differentiation.")
      .def_property_readonly("voronets", &Frame::voronets)
      .def_property_readonly("kane", &Frame::kane)
      .def_property_readonly("has_offset", &Frame::has_offset,
                             "True for a frame of affine constraints: q' = X_D v + w0(q).")
      .def_property_readonly("solved", &Frame::solved)
      .def_property_readonly("n", &Frame::n)
      .def_property_readonly("rank", &Frame::rank)
      .def_property_readonly("values_tape_size", [](const Frame& f) {
        const Tape& t = f.voronets() ? f.values_tape() : f.tape();
        return py::make_tuple(t.n_instructions(), t.n_outputs());
      }, "(instructions, outputs) of the tape a right-hand side of the frame form evaluates: A(q) for the "
         "Voronets frame, X and dX/dq for a frame given by expressions.")
      .def("evaluate", [](const Frame& f, py::handle q, py::handle p) {
        auto qv = as_vector(q, f.n(), "q");
        auto pv = as_vector(p, f.system().n_params(), "params");
        FrameGeometry<double> g;
        f.evaluate(qv.data(), pv.data(), g);
        const py::ssize_t n = f.n();
        py::array_t<double> X({n, n}), dX({n, n, n});  // dX[l] = dX/dq^l
        std::copy(g.out.begin(), g.out.begin() + n * n, X.mutable_data());
        std::copy(g.out.begin() + n * n, g.out.begin() + (n + 1) * n * n, dX.mutable_data());
        if (!f.has_offset()) return py::tuple(py::make_tuple(X, dX));
        py::array_t<double> w0(n), dw0({n, n});  // dw0[l] = dw0/dq^l
        std::copy(g.out.begin() + (n + 1) * n * n, g.out.begin() + (n + 1) * n * n + n, w0.mutable_data());
        std::copy(g.out.begin() + (n + 1) * n * n + n, g.out.begin() + (n + 1) * n * n + (n + 1) * n,
                  dw0.mutable_data());
        return py::tuple(py::make_tuple(X, dX, w0, dw0));
      }, py::arg("q"), py::arg("params"), "(X, dX) at q: X[i, j] = component i of X_j, dX[l] = dX/dq^l; "
         "(X, dX, w0, dw0) for a frame with an offset, dw0[l] = dw0/dq^l.");

  m.def("hamel_model", &make_hamel_model, py::arg("frame"));
  m.def("frame_vakonomic_model", &make_frame_vakonomic_model, py::arg("frame"));
  m.def("frame_multipliers", [](const Model& model, double t, py::handle q, py::handle v, py::handle p) {
    const int n = model.system().n(), r = n - model.system().k();
    auto qv = as_vector(q, n, "q");
    auto vv = as_vector(v, r, "v");
    auto pv = as_vector(p, model.n_params(), "params");
    return frame_multipliers(model, t, qv.data(), vv.data(), pv.data());
  }, py::arg("model"), py::arg("t"), py::arg("q"), py::arg("v"), py::arg("params"));
}
