#include <memory>

#include "bindings.hpp"
#include "nonholo/errors.hpp"
#include "nonholo/scalar/dual.hpp"
#include "nonholo/tape/tape.hpp"

using namespace nonholo;

namespace {

// Builds a graph from serialized nodes (op, a, b, n, c); operand indices refer to earlier
// serialized nodes. The builder may fold or merge nodes, hence the remapping.
ExprGraph make_graph(int n_inputs, const std::vector<int>& ops, const std::vector<int>& a, const std::vector<int>& b,
                     const std::vector<int>& n, const std::vector<double>& c, const std::vector<int>& outputs) {
  const std::size_t size = ops.size();
  if (a.size() != size || b.size() != size || n.size() != size || c.size() != size)
    throw InputError("serialized graph arrays have different lengths");
  GraphBuilder builder(n_inputs);
  std::vector<int> map(size);
  for (std::size_t i = 0; i < size; ++i) {
    if (ops[i] < 0 || ops[i] >= kOpCount) throw InputError("unknown tape op code " + std::to_string(ops[i]));
    Op op = static_cast<Op>(ops[i]);
    auto operand = [&](int j) {
      if (j < 0 || j >= static_cast<int>(i)) throw InputError("serialized graph operand out of order");
      return map[j];
    };
    int ia = -1, ib = -1;
    if (op == Op::Input) ia = a[i];
    else if (op != Op::Const) {
      ia = operand(a[i]);
      if (op_arity(op) == 2) ib = operand(b[i]);
    }
    map[i] = builder.add_node(op, ia, ib, n[i], c[i]);
  }
  std::vector<int> out;
  for (int o : outputs) {
    if (o < 0 || o >= static_cast<int>(size)) throw InputError("serialized graph output out of range");
    out.push_back(map[o]);
  }
  return builder.finish(out);
}

}  // namespace

void expose_tape(py::module_& m) {
  py::class_<ExprGraph>(m, "Graph", "An expression graph in SSA form (inputs, nodes, outputs).")
      .def_readonly("n_inputs", &ExprGraph::n_inputs)
      .def_property_readonly("n_nodes", [](const ExprGraph& g) { return g.nodes.size(); })
      .def_property_readonly("n_outputs", [](const ExprGraph& g) { return g.outputs.size(); });

  m.def("make_graph", &make_graph, py::arg("n_inputs"), py::arg("ops"), py::arg("a"), py::arg("b"), py::arg("n"),
        py::arg("c"), py::arg("outputs"), "Graph from serialized nodes (op code, operands, exponent, constant).");

  m.def("op_codes", [] {
    py::dict d;
    for (int i = 0; i < kOpCount; ++i) d[py::str(op_name(static_cast<Op>(i)))] = i;
    return d;
  }, "Mapping from op name to op code.");

  py::class_<Tape, std::shared_ptr<Tape>>(m, "Tape", "A compiled expression tape, evaluated in C++.")
      .def(py::init<ExprGraph>(), py::arg("graph"))
      .def_property_readonly("n_inputs", &Tape::n_inputs)
      .def_property_readonly("n_outputs", &Tape::n_outputs)
      .def_property_readonly("n_instructions", &Tape::n_instructions)
      .def_property_readonly("n_slots", &Tape::n_slots)
      .def_property_readonly("n_interpreted", &Tape::n_interpreted,
                             "Operations the interpreter executes (products fused into their reader).")
      .def_property_readonly("n_runs", &Tape::n_runs,
                             "Runs of independent operations of one kind in the interpreter's level schedule.")
      .def("disassemble", &Tape::disassemble)
      .def("__call__", [](const Tape& tape, py::handle inputs) {
        std::vector<double> in = as_vector(inputs, tape.n_inputs(), "inputs");
        std::vector<double> out(tape.n_outputs()), work;
        tape.eval(in.data(), out.data(), work);
        return to_numpy(out.data(), {static_cast<py::ssize_t>(out.size())});
      }, py::arg("inputs"), "Evaluate all outputs at one input vector.")
      .def("jacobian", [](const Tape& tape, py::handle inputs) {
        // Forward-mode AD through the tape, one direction at a time (for tests and users).
        std::vector<double> in = as_vector(inputs, tape.n_inputs(), "inputs");
        using D = Dual<double, 1>;
        const int ni = tape.n_inputs(), no = tape.n_outputs();
        std::vector<D> din(ni), dout(no), work;
        py::array_t<double> J({no, ni});
        auto Jm = J.mutable_unchecked<2>();
        for (int j = 0; j < ni; ++j) {
          for (int i = 0; i < ni; ++i) din[i] = D(in[i]);
          din[j].d[0] = 1.0;
          tape.eval(din.data(), dout.data(), work);
          for (int i = 0; i < no; ++i) Jm(i, j) = dout[i].d[0];
        }
        return J;
      }, py::arg("inputs"), "Jacobian of the outputs with respect to the inputs, by dual numbers.");
}
