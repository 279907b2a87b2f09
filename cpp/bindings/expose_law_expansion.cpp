// A friction law given by tapes (nonholo/law_slow_manifold.hpp), for the reduced model of the law
// (reduced_model(..., law=)), and the queries of its slow manifold at a point (the scale, the
// slip, the friction ratio).
#include <memory>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "nonholo/law_slow_manifold.hpp"

using namespace nonholo;

void expose_law_expansion(py::module_& m) {
  py::class_<LawExpansion, std::shared_ptr<LawExpansion>>(
      m, "LawExpansion", "A friction law of a system's contacts as tapes, for the slow-manifold expansion.")
      .def(py::init([](std::string name, std::vector<std::shared_ptr<Tape>> laws, std::vector<std::vector<int>> rows,
                       std::shared_ptr<Tape> scale, std::shared_ptr<Tape> limits, std::vector<bool> has_limit,
                       std::vector<bool> disc) {
             auto law = std::make_shared<LawExpansion>();
             law->name = std::move(name);
             for (auto& tape : laws) law->laws.push_back(std::move(tape));
             law->rows = std::move(rows);
             law->scale = std::move(scale);
             law->limits = std::move(limits);
             law->has_limit.assign(has_limit.begin(), has_limit.end());
             law->disc.assign(disc.begin(), disc.end());
             law->disc.resize(law->rows.size(), 0);
             return law;
           }),
           py::arg("name"), py::arg("laws"), py::arg("rows"), py::arg("scale"), py::arg("limits"),
           py::arg("has_limit"), py::arg("disc") = std::vector<bool>{},
           "Per contact c, the tape of Phi_c([varsigma_c, q, v, t, p]) and its rows; the scale eps(p); the "
           "cone's edge L_c([q, v, t, p]) per contact (None: no law saturates) and which contacts it bounds.");
  py::class_<LawFoldEvent, std::shared_ptr<LawFoldEvent>>(
      m, "LawFoldEvent", "The fold event of a law's reduced model: threshold - the largest friction ratio of its "
      "contacts at y = [q, u], evaluated in C++ with each run's parameters (an event of nh.simulate and "
      "nh.simulate_many).")
      .def(py::init([](std::shared_ptr<const MechanicalSystem> system, std::shared_ptr<const LawExpansion> law,
                       double threshold) {
             law->check(*system);
             auto event = std::make_shared<LawFoldEvent>();
             event->system = std::move(system);
             event->law = std::move(law);
             event->threshold = threshold;
             return event;
           }),
           py::arg("system"), py::arg("law"), py::arg("threshold"))
      .def("__call__", [](const LawFoldEvent& event, double t, py::handle y, py::handle p) {
        auto yv = as_vector(y, 2 * event.system->n(), "y");
        auto pv = as_vector(p, event.system->n_params(), "params");
        return event(t, yv.data(), pv.data());
      }, py::arg("t"), py::arg("y"), py::arg("params"), "The event's value at (t, y) with the parameters p.");
  m.def("law_scale", [](std::shared_ptr<const MechanicalSystem> system, const LawExpansion& law, py::handle p) {
    law.check(*system);
    auto pv = as_vector(p, system->n_params(), "params");
    return law_scale_value(*system, law, pv.data());
  }, py::arg("system"), py::arg("law"), py::arg("params"), "The law's scale eps at the system's parameters.");
  m.def("law_friction_ratio", [](std::shared_ptr<const MechanicalSystem> system, const LawExpansion& law,
                                 py::handle t, py::handle QU, py::handle p) {
    law.check(*system);
    const int n = system->n(), contacts = static_cast<int>(law.rows.size());
    auto tv = as_vector(t, -1, "t");
    const int n_t = static_cast<int>(tv.size());
    auto y = as_vector(QU, static_cast<py::ssize_t>(n_t) * 2 * n, "y (time-major [q, u] per sample)");
    auto pv = as_vector(p, system->n_params(), "params");
    std::vector<double> out(static_cast<std::size_t>(n_t) * contacts);
    {
      py::gil_scoped_release release;
      for (int i = 0; i < n_t; ++i) {
        const double* q = y.data() + static_cast<std::size_t>(i) * 2 * n;
        law_friction_ratio_at(*system, law, tv[i], q, q + n, pv.data(),
                              out.data() + static_cast<std::size_t>(i) * contacts);
      }
    }
    return to_numpy(out.data(), {n_t, contacts});
  }, py::arg("system"), py::arg("law"), py::arg("t"), py::arg("y"), py::arg("params"),
     "|lambda_c| over the law's largest force in its direction per contact at time-major samples [q, u], shape "
     "(n_t, n_contacts): 1 at the fold of the slow manifold, at least 1 where no slip carries the force (NaN where "
     "the law gives no force).");
  m.def("law_slip", [](std::shared_ptr<const MechanicalSystem> system, const LawExpansion& law, double t, py::handle q,
                       py::handle u, py::handle p, int order) {
    law.check(*system);
    const int n = system->n();
    auto qv = as_vector(q, n, "q");
    auto uv = as_vector(u, n, "u");
    auto pv = as_vector(p, system->n_params(), "params");
    std::vector<double> h(static_cast<std::size_t>(std::max(order, 0)) * n);
    law_slip_terms(*system, law, t, qv.data(), uv.data(), pv.data(), order, h.data());
    return to_numpy(h.data(), {std::max(order, 0), n});
  }, py::arg("system"), py::arg("law"), py::arg("t"), py::arg("q"), py::arg("u"), py::arg("params"), py::arg("order"),
     "h^(1..order) of the law's slow manifold at (t, q, u), shape (order, n): s = sum_k eps^k h^(k).");
}
