// Whole-trajectory quantities (nonholo/trajectory.hpp): arrays in, arrays out, the GIL released.
#include <algorithm>
#include <optional>

#include "bindings.hpp"
#include "nonholo/slow_manifold_validity.hpp"
#include "nonholo/trajectory.hpp"

using namespace nonholo;

namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// A time-major (n_t, width) view of `y`, checked; `what` names the argument.
Array samples(const py::handle& y, py::ssize_t width, const char* what) {
  Array a = Array::ensure(y);
  if (!a || a.ndim() != 2 || a.shape(1) < width)
    throw py::value_error(std::string(what) + " must have shape (n_t, " + std::to_string(width) + ")");
  return a;
}

Array times(const py::handle& t, py::ssize_t n_t) {
  Array a = Array::ensure(t);
  if (!a || a.ndim() != 1 || a.shape(0) != n_t)
    throw py::value_error("t must have shape (" + std::to_string(n_t) + ",), one time per sample");
  return a;
}

}  // namespace

void expose_trajectory(py::module_& m) {
  m.def("reduced_validity", [](const Model& friction, const MechanicalSystem& sys, int order, double eps,
                               py::handle t, py::handle qu, py::handle p, const CompiledSlip* next) {
    Array QU = samples(qu, 2 * sys.n(), "qu");
    if (QU.shape(1) != 2 * sys.n()) throw py::value_error("qu must have shape (n_t, " + std::to_string(2 * sys.n()) + ")");
    const auto n_t = QU.shape(0);
    Array T = times(t, n_t);
    auto pv = as_vector(p, sys.n_params(), "params");
    const auto n = static_cast<py::ssize_t>(sys.n());
    // each J_i column-major, as Model::jacobian writes it: strides make it the matrix J_i itself
    const auto size = static_cast<py::ssize_t>(sizeof(double));
    py::array_t<double> V({n_t, n}), r(n_t), bound(n_t);
    py::array_t<double> J({n_t, 2 * n, 2 * n}, {4 * n * n * size, size, 2 * n * size});
    double *v = V.mutable_data(), *d = J.mutable_data(), *rr = r.mutable_data(), *b = bound.mutable_data();
    {
      py::gil_scoped_release release;
      reduced_validity(friction, sys, next, order, eps, static_cast<int>(n_t), T.data(), QU.data(), pv.data(), v, d,
                       rr, b);
    }
    return py::make_tuple(V, J, r, bound);
  }, py::arg("friction"), py::arg("system"), py::arg("order"), py::arg("eps"), py::arg("t"), py::arg("qu"),
     py::arg("params"), py::arg("next") = nullptr,
     "(V, J, r, bound) of a reduced model of this order at the samples qu = [q, u] (time-major, shape (n_t, 2n)): "
     "its velocity, the friction model's Jacobian there (n_t, 2n, 2n), the first dropped term relative to the samples' "
     "largest velocity and an upper bound of the spectral gap of each Jacobian, no eigenvalues (inf where it cannot "
     "decide; nonholo/slow_manifold_validity.hpp); `next` a CompiledSlip of order + 1, else Taylor mode.");
  m.def("reduced_run_check", [](const Model& friction, const MechanicalSystem& sys, int order, double eps,
                                py::handle t, py::handle qu, py::handle p, const CompiledSlip* next,
                                py::function gap, double threshold, double next_term_threshold, double margin,
                                double speed_growth, bool exact) {
    Array QU = samples(qu, 2 * sys.n(), "qu");
    if (QU.shape(1) != 2 * sys.n()) throw py::value_error("qu must have shape (n_t, " + std::to_string(2 * sys.n()) + ")");
    const auto n_t = QU.shape(0);
    Array T = times(t, n_t);
    auto pv = as_vector(p, sys.n_params(), "params");
    const auto n2 = static_cast<py::ssize_t>(2 * sys.n()), size = static_cast<py::ssize_t>(sizeof(double));
    GapSolver solver = [&](int count, const double* J, double* delta) {
      py::gil_scoped_acquire hold;
      py::array_t<double> stack({static_cast<py::ssize_t>(count), n2, n2}, {n2 * n2 * size, size, n2 * size}, J);
      Array out = Array::ensure(gap(stack));
      if (!out || out.ndim() != 1 || out.shape(0) != count)
        throw py::value_error("gap must return one ratio per matrix");
      std::copy(out.data(), out.data() + count, delta);
    };
    RunCheckOptions options{threshold, next_term_threshold, margin, speed_growth, exact};
    RunCheck check;
    {
      py::gil_scoped_release release;
      check = check_reduced_run(friction, sys, next, order, eps, static_cast<int>(n_t), T.data(), QU.data(),
                                pv.data(), options, solver);
    }
    const auto count = static_cast<py::ssize_t>(check.evaluated.size());
    py::array_t<long> idx(count);
    py::array_t<double> delta(count), r(count);
    py::array_t<bool> bounded(count);
    for (py::ssize_t i = 0; i < count; ++i) {
      idx.mutable_at(i) = check.evaluated[i];
      delta.mutable_at(i) = check.delta[i];
      r.mutable_at(i) = check.r[i];
      bounded.mutable_at(i) = check.bounded[i] != 0;
    }
    return py::make_tuple(idx, delta, r, bounded);
  }, py::arg("friction"), py::arg("system"), py::arg("order"), py::arg("eps"), py::arg("t"), py::arg("qu"),
     py::arg("params"), py::arg("next"), py::arg("gap"), py::arg("threshold"), py::arg("next_term_threshold"),
     py::arg("margin"), py::arg("speed_growth"), py::arg("exact"),
     "(evaluated, delta, r, bounded): the validity check of a run at its samples qu = [q, u] (time-major), with the "
     "bisection of nonholo.models.validity when margin > 1 (0: every sample); `gap(J)` gives |lambda_(k+1)| / "
     "|lambda_k| of a stack of Jacobians (n_c, 2n, 2n), called only where the bound does not decide "
     "(nonholo/slow_manifold_validity.hpp).");
  m.def("slow_manifold_velocity", [](const MechanicalSystem& sys, int order, double eps, py::handle t, py::handle y,
                                     py::handle p, const CompiledSlip* compiled) {
    if (compiled != nullptr && (compiled->order() != order || &compiled->system() != &sys))
      throw py::value_error("compiled: the compiled slow manifold is of another order or system");
    Array Y = samples(y, 2 * sys.n(), "y");
    const auto n_t = Y.shape(0);
    Array T = times(t, n_t);
    auto pv = as_vector(p, sys.n_params(), "params");
    py::array_t<double> out({n_t, static_cast<py::ssize_t>(sys.n())});
    double* o = out.mutable_data();
    {
      py::gil_scoped_release release;
      slow_manifold_velocity(sys, compiled, order, eps, static_cast<int>(n_t), T.data(), Y.data(), static_cast<int>(Y.shape(1)),
                             pv.data(), o);
    }
    return out;
  }, py::arg("system"), py::arg("order"), py::arg("eps"), py::arg("t"), py::arg("y"), py::arg("params"),
     py::arg("compiled") = nullptr,
     "u + sum_{k<=order} eps^k h^(k)(t, q, u) at every sample of y = [q, u, ...] (time-major), shape (n_t, n); "
     "h^(k) from `compiled` (a CompiledSlip of this system and order) when given, else by Taylor mode.");

  m.def("frame_velocity", [](const Frame& frame, py::handle y, py::handle p, std::optional<std::vector<int>> solved) {
    Array Y = samples(y, frame.n() + frame.rank(), "y");
    const auto n_t = Y.shape(0);
    auto pv = as_vector(p, frame.system().n_params(), "params");
    if (solved && (!frame.voronets() || static_cast<int>(solved->size()) != frame.n() - frame.rank()))
      throw py::value_error("solved: a split of k coordinates, for a Voronets frame only");
    py::array_t<double> out({n_t, static_cast<py::ssize_t>(frame.n())});
    double* o = out.mutable_data();
    {
      py::gil_scoped_release release;
      frame_velocity(frame, static_cast<int>(n_t), Y.data(), static_cast<int>(Y.shape(1)), pv.data(), o,
                     solved ? &*solved : nullptr);
    }
    return out;
  }, py::arg("frame"), py::arg("y"), py::arg("params"), py::arg("solved") = py::none(),
     "X_D(q) v^alpha at every sample of y = [q, v^alpha, ...] (time-major), shape (n_t, n); `solved`: the "
     "split of a Voronets frame to use (a run's re-split, SimulationResult.frame_switches), default the frame's own.");

  m.def("trajectory_energy", [](const MechanicalSystem& sys, py::handle t, py::handle q, py::handle v, py::handle p) {
    Array Q = samples(q, sys.n(), "q"), V = samples(v, sys.n(), "v");
    const auto n_t = Q.shape(0);
    if (V.shape(0) != n_t || V.shape(1) != sys.n())
      throw py::value_error("v must have shape (n_t, n) like q");
    Array T = times(t, n_t);
    auto pv = as_vector(p, sys.n_params(), "params");
    py::array_t<double> out(n_t);
    double* o = out.mutable_data();
    {
      py::gil_scoped_release release;
      trajectory_energy(sys, static_cast<int>(n_t), T.data(), Q.data(), static_cast<int>(Q.shape(1)), V.data(),
                        pv.data(), o);
    }
    return out;
  }, py::arg("system"), py::arg("t"), py::arg("q"), py::arg("v"), py::arg("params"),
     "1/2 v^T G(q) v + V(q) at every sample (q, v time-major, shape (n_t, n)), shape (n_t,).");

  m.def("trajectory_constraint_residual", [](const Model& model, py::handle t, py::handle y, py::handle p) {
    Array Y = samples(y, model.n_states(), "y");
    const auto n_t = Y.shape(0);
    if (Y.shape(1) != model.n_states()) throw py::value_error("y must have one column per state");
    Array T = times(t, n_t);
    auto pv = as_vector(p, model.n_params(), "params");
    py::array_t<double> out(n_t);
    double* o = out.mutable_data();
    {
      py::gil_scoped_release release;
      trajectory_constraint_residual(model, static_cast<int>(n_t), T.data(), Y.data(), pv.data(), o);
    }
    return out;
  }, py::arg("model"), py::arg("t"), py::arg("y"), py::arg("params"),
     "|A v - b| / (|A| |v| + |b|) at every sample of y (time-major, shape (n_t, n_states)), shape (n_t,).");
}
