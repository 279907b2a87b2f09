#include "nonholo/ocp/point_derivatives.hpp"

#include <numeric>

namespace nonholo {

namespace {

// The builder node i is a structural zero: the constant 0 the builder folds a vanishing
// derivative to (or no node at all).
bool structural_zero(const GraphBuilder& b, int i) {
  if (i < 0) return true;
  const Node& nd = b.nodes()[i];
  return nd.op == Op::Const && nd.c == 0.0;
}

std::vector<int> inputs_of(GraphBuilder& b, int count) {
  std::vector<int> map(count);
  for (int i = 0; i < count; ++i) map[i] = b.input(i);
  return map;
}

}  // namespace

PointDerivatives point_derivatives(const ExprGraph& g) {
  const int nz = g.n_inputs, m = static_cast<int>(g.outputs.size());
  std::vector<int> all(nz);
  std::iota(all.begin(), all.end(), 0);
  PointDerivatives out;

  // F and J = dF/dz: one forward sweep per variable
  GraphBuilder b(nz);
  const std::vector<int> map = b.append(g, inputs_of(b, nz));
  const std::vector<std::vector<int>> d = differentiate(g, map, all, b);
  std::vector<int> outputs;
  for (int o : g.outputs) outputs.push_back(map[o]);
  for (int o = 0; o < m; ++o)
    for (int k = 0; k < nz; ++k) {
      const int node = d[k][g.outputs[o]];
      if (structural_zero(b, node)) continue;
      out.jac_rows.push_back(o);
      out.jac_cols.push_back(k);
      outputs.push_back(node);
    }
  out.node = live_subgraph(b.nodes(), outputs, nz).graph;

  // the gradient of sum_o mu_o F_o (one backward sweep, mu the inputs after z), then its
  // derivatives (one forward sweep per variable over the gradient's graph)
  GraphBuilder h(nz + m);
  const std::vector<int> hmap = h.append(g, inputs_of(h, nz));
  std::vector<std::pair<int, int>> seeds;
  for (int o = 0; o < m; ++o) seeds.emplace_back(g.outputs[o], h.input(nz + o));
  const std::vector<int> grad = gradient(g, hmap, seeds, std::vector<char>(nz, 1), h);
  std::vector<int> live_grad;
  std::vector<int> grad_index;  // the variable of each live gradient entry
  for (int i = 0; i < nz; ++i)
    if (!structural_zero(h, grad[i])) {
      live_grad.push_back(grad[i]);
      grad_index.push_back(i);
    }
  const ExprGraph gg = live_subgraph(h.nodes(), live_grad, nz + m).graph;
  GraphBuilder h2(nz + m);
  const std::vector<int> map2 = h2.append(gg, inputs_of(h2, nz + m));
  const std::vector<std::vector<int>> dd = differentiate(gg, map2, all, h2);
  std::vector<int> values;
  for (std::size_t e = 0; e < grad_index.size(); ++e) {
    const int r = grad_index[e];
    for (int c = 0; c <= r; ++c) {
      const int node = dd[c][gg.outputs[e]];
      if (structural_zero(h2, node)) continue;
      out.hess_rows.push_back(r);
      out.hess_cols.push_back(c);
      values.push_back(node);
    }
  }
  out.hessian = live_subgraph(h2.nodes(), values, nz + m).graph;
  return out;
}

}  // namespace nonholo
