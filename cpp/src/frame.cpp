#include "nonholo/frame.hpp"

#include <string>

#include "nonholo/errors.hpp"

namespace nonholo {

Frame::Frame(std::shared_ptr<const MechanicalSystem> system, ExprGraph graph) : system_(std::move(system)) {
  const int n = system_->n();
  if (graph.n_inputs != system_->n_inputs())
    throw InputError("the frame's expression graph has " + std::to_string(graph.n_inputs) + " inputs, expected " +
                     std::to_string(system_->n_inputs()));
  if (static_cast<int>(graph.outputs.size()) != n * n)
    throw InputError("a frame has n*n = " + std::to_string(n * n) + " entries, got " + std::to_string(graph.outputs.size()));
  if (system_->has_affine())
    throw InputError("anholonomic frames are implemented for linear constraints (A v = 0), not affine ones");
  GraphBuilder builder(graph.n_inputs);
  std::vector<int> identity(graph.n_inputs);
  for (int i = 0; i < graph.n_inputs; ++i) identity[i] = builder.input(i);
  std::vector<int> map = builder.append(graph, identity);
  std::vector<int> wrt(n);
  for (int l = 0; l < n; ++l) wrt[l] = l;
  auto deriv = differentiate(graph, map, wrt, builder);
  std::vector<int> outputs;
  outputs.reserve((1 + n) * n * n);
  for (int o : graph.outputs) outputs.push_back(map[o]);
  for (int l = 0; l < n; ++l)
    for (int o : graph.outputs) {
      int d = deriv[l][o];
      outputs.push_back(d < 0 ? builder.constant(0.0) : d);
    }
  tape_ = Tape(builder.finish(outputs));
}

}  // namespace nonholo
