#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "bindings.hpp"
#include "nonholo/integrator.hpp"
#include "nonholo/law_slow_manifold.hpp"

using namespace nonholo;

namespace {

Method parse_method(const std::string& name) {
  if (name == "auto") return Method::Auto;
  if (name == "bdf" || name == "BDF") return Method::Bdf;
  if (name == "adams" || name == "Adams") return Method::Adams;
  if (name == "dop853" || name == "DOP853") return Method::Dop853;
  throw py::value_error("method must be 'auto', 'bdf' or 'adams' (got '" + name + "')");
}

// The keys of the solver_options dict: the one list (Python's nonholo.options reads it through
// _core.solver_option_keys(), and checks values against its kinds and bounds before a run). A
// key's kind is "int" or "float" (a number in [low, high]; a float must exceed low), "pairs" (a
// sequence of (positions, velocities) index lists), "bool" or "choice" (one of the strings
// `choices`); internal keys are set by simulate itself, never by the user.
struct SolverOptionKey {
  const char* name;
  const char* kind;
  double low, high;
  bool internal;
  void (*apply)(IntegrationOptions&, py::handle);
  std::vector<std::string> choices = {};
};

// The value of a "choice" key, checked against its choices.
std::string choice_of(py::handle v, const char* name, const std::vector<std::string>& choices) {
  std::string names;
  for (const auto& c : choices) names += (names.empty() ? "'" : ", '") + c + "'";
  if (py::isinstance<py::str>(v)) {
    const std::string value = v.cast<std::string>();
    for (const auto& c : choices)
      if (value == c) return value;
  }
  throw py::value_error("solver_options['" + std::string(name) + "'] must be one of " + names + ", got " +
                        py::repr(v).cast<std::string>());
}

constexpr double kUnbounded = std::numeric_limits<double>::infinity();
const SolverOptionKey kSolverOptionKeys[] = {
    {"max_order", "int", 1, 12, false, [](IntegrationOptions& o, py::handle v) { o.max_order = v.cast<int>(); }},
    {"jacobian_frequency", "int", 1, kUnbounded, false,
     [](IntegrationOptions& o, py::handle v) { o.jacobian_frequency = v.cast<long>(); }},
    {"setup_frequency", "int", 1, kUnbounded, false,
     [](IntegrationOptions& o, py::handle v) { o.setup_frequency = v.cast<long>(); }},
    {"max_nonlinear_iterations", "int", 1, kUnbounded, false,
     [](IntegrationOptions& o, py::handle v) { o.max_nonlinear_iterations = v.cast<int>(); }},
    {"nonlinear_convergence", "float", 0, kUnbounded, false,
     [](IntegrationOptions& o, py::handle v) { o.nonlinear_convergence = v.cast<double>(); }},
    {"jacobian_step_growth", "float", 1, kUnbounded, false,
     [](IntegrationOptions& o, py::handle v) { o.jacobian_step_growth = v.cast<double>(); }},
    {"unit_norm", "pairs", 0, 0, false,
     [](IntegrationOptions& o, py::handle v) {
       // sequence of (position indices, velocity indices) into the state
       for (auto group : v) {
         auto pair = group.cast<py::sequence>();
         if (pair.size() != 2) throw py::value_error("solver_options['unit_norm'] takes pairs (positions, velocities)");
         o.unit_norm.push_back({pair[0].cast<std::vector<int>>(), pair[1].cast<std::vector<int>>()});
       }
     }},
    {"jacobian_costs", "choice", 0, 0, false,
     [](IntegrationOptions& o, py::handle v) {
       o.measured_jacobian_costs = choice_of(v, "jacobian_costs", {"measured", "estimated"}) == "measured";
     },
     {"measured", "estimated"}},
    {"dense_output", "bool", 0, 0, true, [](IntegrationOptions& o, py::handle v) { o.dense_output = v.cast<bool>(); }},
    {"step_trail", "int", 0, 1e6, true, [](IntegrationOptions& o, py::handle v) { o.step_trail = v.cast<int>(); }},
    {"initial_state_checked", "bool", 0, 0, true,
     [](IntegrationOptions& o, py::handle v) { o.check_initial_state = !v.cast<bool>(); }},
};

std::string known_solver_option_keys() {
  std::string names;
  for (const auto& key : kSolverOptionKeys)
    if (!key.internal) names += (names.empty() ? "" : ", ") + std::string(key.name);
  return names;
}

void apply_solver_options(IntegrationOptions& o, const py::dict& extra) {
  for (auto item : extra) {
    const std::string name = py::str(item.first);
    const SolverOptionKey* key = nullptr;
    for (const auto& k : kSolverOptionKeys)
      if (name == k.name) key = &k;
    if (key == nullptr)
      throw py::value_error("unknown key '" + name + "' in solver_options; known: " + known_solver_option_keys());
    key->apply(o, item.second);
  }
}

// name -> (kind, low, high) of the keys a user may pass (high None: unbounded; a choice's low: its
// strings).
py::dict solver_option_keys() {
  py::dict out;
  for (const auto& key : kSolverOptionKeys) {
    if (key.internal) continue;
    py::object high = std::isinf(key.high) ? py::object(py::none()) : py::object(py::float_(key.high));
    // a choice's "low" is the tuple of its strings
    py::object low = key.choices.empty() ? py::object(py::float_(key.low)) : py::object(py::tuple(py::cast(key.choices)));
    out[key.name] = py::make_tuple(key.kind, low, high);
  }
  return out;
}

IntegrationOptions make_options(double rtol, py::handle atol, const std::string& method, double max_step,
                                double first_step, long max_steps, double max_wall_time, bool project,
                                const py::dict& extra) {
  IntegrationOptions o;
  o.rtol = rtol;
  o.atol = as_vector(atol, -1, "atol");
  o.method = parse_method(method);
  o.max_step = max_step;
  o.first_step = first_step;
  o.max_steps = max_steps;
  o.max_wall_time = max_wall_time;
  o.project = project;
  apply_solver_options(o, extra);
  return o;
}

// sensitivity: {"parameters": [...], "states": [...]} (one entry per sensitivity, -1 where it
// names the other kind), "staggered": bool, "error_control": bool, optionally "initial": one
// d y(t0) / d p per sensitivity (None or a sequence of n_states numbers). Empty: none.
void apply_sensitivity(IntegrationOptions& o, const py::dict& sensitivity) {
  if (sensitivity.empty()) return;
  auto parameters = sensitivity["parameters"].cast<std::vector<int>>();
  auto states = sensitivity["states"].cast<std::vector<int>>();
  if (parameters.size() != states.size()) throw py::value_error("sensitivity: parameters and states differ in length");
  for (std::size_t j = 0; j < parameters.size(); ++j) o.sensitivities.push_back({parameters[j], states[j], {}});
  if (sensitivity.contains("initial")) {
    auto initial = sensitivity["initial"].cast<std::vector<py::object>>();
    if (initial.size() != parameters.size()) throw py::value_error("sensitivity: initial and parameters differ in length");
    for (std::size_t j = 0; j < initial.size(); ++j)
      if (!initial[j].is_none()) o.sensitivities[j].initial = initial[j].cast<std::vector<double>>();
  }
  o.sensitivity_staggered = sensitivity["staggered"].cast<bool>();
  o.sensitivity_error_control = sensitivity["error_control"].cast<bool>();
}

// events: sequence of (tape_or_callable, direction, terminal[, dynamics[, watch]]) (a LawFoldEvent: in C++). A callable is called as
// f(t, y) with y a NumPy array, holding the GIL; `dynamics`: a tape of [q, v, t, p, q'', lambda]
// (EventSpec).
std::vector<EventSpec> make_events(const py::sequence& events, int n_states) {
  std::vector<EventSpec> specs;
  for (py::handle item : events) {
    auto tup = py::reinterpret_borrow<py::tuple>(item);
    EventSpec ev;
    py::object f = tup[0];
    ev.direction = tup[1].cast<int>();
    ev.terminal = tup[2].cast<int>();
    ev.dynamics = tup.size() > 3 && tup[3].cast<bool>();
    ev.watch = tup.size() > 4 && tup[4].cast<bool>();
    if (py::isinstance<Tape>(f)) {
      ev.tape = f.cast<std::shared_ptr<Tape>>();
    } else if (py::isinstance<LawFoldEvent>(f)) {  // in C++, with each run's parameters
      auto fold = f.cast<std::shared_ptr<LawFoldEvent>>();
      ev.state_function = [fold](double t, const double* y, const double* p) { return (*fold)(t, y, p); };
    } else {
      auto fn = std::make_shared<py::object>(f);
      ev.callback = [fn, n_states](double t, const double* y) {
        py::gil_scoped_acquire gil;
        // An exception the function raises (error_already_set) leaves integrate() as itself
        // once CVODE has returned, and reaches the caller unchanged.
        py::object r = (*fn)(t, to_numpy(y, {n_states}));
        try {
          return r.cast<double>();
        } catch (py::cast_error&) {
          throw py::type_error("an event function must return a float, got " +
                               std::string(py::str(py::type::of(r).attr("__name__"))));
        }
      };
    }
    specs.push_back(std::move(ev));
  }
  return specs;
}

// Destroying events that hold Python objects needs the GIL: release it only around integration.
void release_callbacks(std::vector<EventSpec>& events) {
  for (auto& ev : events) ev.callback = nullptr;
}

// The keys of the output dict (and of its stats), made and interned once: making ~25 strings
// and their hashes per run was about a third of the binding's own time for a short run. Never
// freed, like pybind11's own interned names.
struct OutputKeys {
  py::handle t, y, status, message, flag, flag_name, t_last, method, stats, t_events, y_events, messages;
  py::handle n_steps, n_rhs, n_jac, n_lin_setups, n_err_test_fails, n_nonlin_iters, n_nonlin_fails, n_proj,
      n_root_evals, last_order, last_step, cpu_time, t_switch, n_restarts;
};

const OutputKeys& output_keys() {
  static const OutputKeys* keys = [] {
    auto k = [](const char* name) { return py::handle(PyUnicode_InternFromString(name)); };
    return new OutputKeys{k("t"), k("y"), k("status"), k("message"), k("flag"), k("flag_name"), k("t_last"),
                          k("method"), k("stats"), k("t_events"), k("y_events"), k("messages"), k("n_steps"),
                          k("n_rhs"), k("n_jac"), k("n_lin_setups"), k("n_err_test_fails"), k("n_nonlin_iters"),
                          k("n_nonlin_fails"), k("n_proj"), k("n_root_evals"), k("last_order"), k("last_step"),
                          k("cpu_time"), k("t_switch"), k("n_restarts")};
  }();
  return *keys;
}

py::dict to_dict(const SimulationOutput& out) {
  const OutputKeys& key = output_keys();
  const py::ssize_t ns = out.n_states, nt = static_cast<py::ssize_t>(out.t.size());
  py::dict d;
  d[key.t] = to_numpy(out.t.data(), {nt});
  py::array_t<double> y({ns, nt});
  auto ym = y.mutable_unchecked<2>();
  for (py::ssize_t i = 0; i < nt; ++i)
    for (py::ssize_t j = 0; j < ns; ++j) ym(j, i) = out.y[i * ns + j];
  d[key.y] = y;
  d[key.status] = out.status;
  d[key.message] = out.message;
  d[key.flag] = out.flag;
  d[key.flag_name] = out.flag_name;
  d[key.t_last] = out.t_last;
  if (!out.y_last.empty()) d["y_last"] = to_numpy(out.y_last.data(), {ns});
  d[key.method] = out.method;
  py::dict stats;
  stats[key.n_steps] = out.stats.n_steps;
  stats[key.n_rhs] = out.stats.n_rhs;
  stats[key.n_jac] = out.stats.n_jac;
  stats[key.n_lin_setups] = out.stats.n_lin_setups;
  stats[key.n_err_test_fails] = out.stats.n_err_test_fails;
  stats[key.n_nonlin_iters] = out.stats.n_nonlin_iters;
  stats[key.n_nonlin_fails] = out.stats.n_nonlin_fails;
  stats[key.n_proj] = out.stats.n_proj;
  stats[key.n_root_evals] = out.stats.n_root_evals;
  stats[key.last_order] = out.stats.last_order;
  stats[key.last_step] = out.stats.last_step;
  stats[key.cpu_time] = out.stats.cpu_time;
  stats[key.t_switch] = out.t_switch;
  stats[key.n_restarts] = out.n_restarts;
  d[key.stats] = stats;
  py::list t_events, y_events;
  for (std::size_t i = 0; i < out.t_events.size(); ++i) {
    const auto& te = out.t_events[i];
    t_events.append(to_numpy(te.data(), {static_cast<py::ssize_t>(te.size())}));
    y_events.append(to_numpy(out.y_events[i].data(), {static_cast<py::ssize_t>(te.size()), ns}));
  }
  d[key.t_events] = t_events;
  d[key.y_events] = y_events;
  d[key.messages] = out.messages;
  d["frame_switch_t"] = out.frame_switch_t;  // frames re-chosen during the run (FrameWatcher::frame_check)
  d["frame_switch_solved"] = out.frame_switch_solved;
  if (out.n_sens > 0) {
    const py::ssize_t nsens = out.n_sens;
    py::array_t<double> s({ns, nsens, nt});
    auto sm = s.mutable_unchecked<3>();
    for (py::ssize_t i = 0; i < nt; ++i)
      for (py::ssize_t j = 0; j < nsens; ++j)
        for (py::ssize_t k = 0; k < ns; ++k) sm(k, j, i) = out.sensitivities[(i * nsens + j) * ns + k];
    d["sensitivities"] = s;
    py::list t_sens, y_sens;
    for (std::size_t e = 0; e < out.t_events.size(); ++e) {
      const py::ssize_t occ = static_cast<py::ssize_t>(out.t_events[e].size());
      t_sens.append(to_numpy(out.t_event_sensitivities[e].data(), {occ, nsens}));
      y_sens.append(to_numpy(out.y_event_sensitivities[e].data(), {occ, nsens, ns}));
    }
    d["t_events_sensitivities"] = t_sens;
    d["y_events_sensitivities"] = y_sens;
  }
  if (!out.trail_t.empty()) {
    const py::ssize_t nk = static_cast<py::ssize_t>(out.trail_t.size());
    d["trail_t"] = to_numpy(out.trail_t.data(), {nk});
    py::array_t<double> trail({ns, nk});
    auto tm = trail.mutable_unchecked<2>();
    for (py::ssize_t i = 0; i < nk; ++i)
      for (py::ssize_t j = 0; j < ns; ++j) tm(j, i) = out.trail_y[i * ns + j];
    d["trail_y"] = trail;
  }
  if (!out.dense.t_end.empty()) {
    py::dict dense;
    const auto& dn = out.dense;
    dense["t_end"] = to_numpy(dn.t_end.data(), {static_cast<py::ssize_t>(dn.t_end.size())});
    dense["h"] = to_numpy(dn.h.data(), {static_cast<py::ssize_t>(dn.h.size())});
    py::array_t<int> order(static_cast<py::ssize_t>(dn.order.size()));
    std::copy(dn.order.begin(), dn.order.end(), order.mutable_data());
    dense["order"] = order;
    dense["derivatives"] = to_numpy(dn.derivatives.data(), {static_cast<py::ssize_t>(dn.derivatives.size())});
    d["dense"] = dense;
  }
  return d;
}

std::string method_name(Method method) {
  switch (method) {
    case Method::Auto: return "auto";
    case Method::Bdf: return "bdf";
    case Method::Adams: return "adams";
    case Method::Dop853: return "dop853";
  }
  return "auto";
}

}  // namespace

void expose_integrate(py::module_& m) {
  m.def("solver_option_keys", &solver_option_keys,
        "The keys of simulate's solver_options: name -> (kind, low, high); kind 'int' or 'float' (a "
        "number in [low, high], high None for no bound, a float above low), 'pairs' (unit_norm's "
        "(positions, velocities) index lists) or 'choice' (low: the tuple of the strings it takes). The one list: nonholo.options checks against it.");
  // The options of one run, converted and checked once (check_options), then passed to
  // integrate and integrate_many as one object.
  py::class_<IntegrationOptions>(m, "RunOptions",
                                 "The options of a run (integrate, integrate_many), converted and checked once.")
      .def(py::init([](double rtol, py::handle atol, const std::string& method, double max_step, double first_step,
                       long max_steps, double max_wall_time, bool project, const py::dict& solver_options,
                       const py::dict& sensitivity) {
             IntegrationOptions o = make_options(rtol, atol, method, max_step, first_step, max_steps, max_wall_time,
                                                 project, solver_options);
             apply_sensitivity(o, sensitivity);
             check_options(o, -1);
             return o;
           }),
           py::kw_only(), py::arg("rtol") = 1e-8, py::arg("atol") = py::float_(1e-10), py::arg("method") = "auto",
           py::arg("max_step") = 0.0, py::arg("first_step") = 0.0, py::arg("max_steps") = 500000L,
           py::arg("max_wall_time") = 0.0, py::arg("project") = true, py::arg("solver_options") = py::dict(),
           py::arg("sensitivity") = py::dict())
      .def_readonly("rtol", &IntegrationOptions::rtol)
      .def_readonly("atol", &IntegrationOptions::atol)
      .def_property_readonly("method", [](const IntegrationOptions& o) { return method_name(o.method); })
      .def_readonly("max_step", &IntegrationOptions::max_step)
      .def_readonly("first_step", &IntegrationOptions::first_step)
      .def_readonly("max_steps", &IntegrationOptions::max_steps)
      .def_readonly("max_wall_time", &IntegrationOptions::max_wall_time)
      .def_readonly("project", &IntegrationOptions::project)
      .def_readonly("dense_output", &IntegrationOptions::dense_output)
      .def_property_readonly("n_sensitivities", [](const IntegrationOptions& o) { return o.sensitivities.size(); });

  m.def("integrate",
        [](const Model& model, py::handle params, double t0, double tf, py::handle y0, py::handle t_eval,
           const py::sequence& events, const IntegrationOptions& opts, const py::object& cancel) {
          auto p = as_vector(params, model.n_params(), "params");
          auto y = as_vector(y0, model.n_states(), "y0");
          auto te = t_eval.is_none() ? std::vector<double>{} : as_vector(t_eval, -1, "t_eval");
          auto evs = make_events(events, model.n_states());
          InterruptCheck interrupted = interrupt_check(cancel);
          SimulationOutput out;
          {
            py::gil_scoped_release release;
            out = integrate(model, p, t0, tf, y, te, evs, opts, interrupted);
          }
          release_callbacks(evs);
          if (out.interrupted) raise_with_partial([&] { return py::object(to_dict(out)); });
          if (out.caller_error) {  // the event function's own exception, with the output up to it
            try {
              std::rethrow_exception(out.caller_error);
            } catch (py::error_already_set& err) {
              if (err.matches(PyExc_KeyboardInterrupt)) {  // Ctrl-C while the event function ran: no error of it
                const std::string raised = "an event function raised an exception";
                const std::size_t at = out.message.find(raised);
                if (at != std::string::npos) out.message.replace(at, raised.size(), "interrupted (Ctrl-C)");
              }
              err.restore();
              raise_with_partial([&] { return py::object(to_dict(out)); });
            }
          }
          return to_dict(out);
        },
        py::arg("model"), py::arg("params"), py::arg("t0"), py::arg("tf"), py::arg("y0"), py::arg("t_eval"),
        py::arg("events"), py::arg("options"), py::arg("cancel") = py::none());

  m.def("integrate_many",
        [](const Model& model, py::handle params, double t0, double tf, py::handle y0s, int n_runs, py::handle t_eval,
           const py::sequence& events, const IntegrationOptions& opts, int threads, const py::object& cancel) {
          auto p = as_vector(params, static_cast<py::ssize_t>(n_runs) * model.n_params(), "params");
          auto y = as_vector(y0s, static_cast<py::ssize_t>(n_runs) * model.n_states(), "Y0");
          auto te = t_eval.is_none() ? std::vector<double>{} : as_vector(t_eval, -1, "t_eval");
          auto evs = make_events(events, model.n_states());
          InterruptCheck interrupted = interrupt_check(cancel);
          std::vector<SimulationOutput> outs;
          {
            py::gil_scoped_release release;
            outs = integrate_many(model, p, t0, tf, y, n_runs, te, evs, opts, threads, interrupted);
          }
          release_callbacks(evs);
          auto outputs = [&] {
            py::list result;
            for (auto& out : outs) {
              if (out.interrupted && out.flag_name.empty()) {  // never started: the batch was interrupted first
                out.status = -1;
                out.flag_name = "INTERRUPTED";
                out.message = "Run not started: the batch was interrupted";
                out.t_last = t0;
              }
              result.append(to_dict(out));
            }
            return result;
          };
          for (const auto& out : outs)  // every run goes with the interrupt, the finished ones complete
            if (out.interrupted) raise_with_partial([&] { return py::object(outputs()); });
          py::list result = outputs();
          return result;
        },
        py::arg("model"), py::arg("params"), py::arg("t0"), py::arg("tf"), py::arg("y0s"), py::arg("n_runs"),
        py::arg("t_eval"), py::arg("events"), py::arg("options"), py::arg("threads") = 0,
        py::arg("cancel") = py::none());
}
