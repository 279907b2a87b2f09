#include "nonholo/mechanical_system.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "nonholo/coordinate_partition.hpp"
#include "nonholo/errors.hpp"

namespace nonholo {

GeometryLayout GeometryLayout::make(int n, int k) {
  GeometryLayout L;
  L.n = n;
  L.k = k;
  L.G = 0;
  L.V = L.G + n * n;
  L.A = L.V + 1;
  L.b = L.A + k * n;
  L.mu = L.b + k;
  L.F = L.mu + k * k;
  L.r = L.F + n;
  L.a = L.r + n;
  L.dynamics = L.a + k;
  L.dG = L.dynamics;
  L.dV = L.dG + n * n * n;
  L.dA = L.dV + n;
  L.db_dq = L.dA + n * k * n;
  L.db_dt = L.db_dq + k * n;
  L.total = L.db_dt + k;
  L.dG_v = L.dynamics;
  L.dA_v = L.dG_v + n * n;
  L.projection_total = L.dA_v + k * n;
  return L;
}

const std::vector<TapeName>& MechanicalSystem::tape_names() {
  static const std::vector<TapeName> names{TapeName::Dynamics,   TapeName::Full,      TapeName::Constraints,
                                           TapeName::Jacobian,   TapeName::Projection, TapeName::SplitBase,
                                           TapeName::VelocityPart};
  return names;
}

const Tape& MechanicalSystem::tape_named(TapeName name) const {
  switch (name) {
    case TapeName::Dynamics: return dynamics_tape();
    case TapeName::Full: return tape();
    case TapeName::Constraints: return constraint_tape();
    case TapeName::Jacobian: return jacobian_tape();
    case TapeName::Projection: return projection_tape();
    case TapeName::SplitBase: return split_base_tape();
    case TapeName::VelocityPart: return velocity_part_tape();
    default: break;
  }
  throw InputError("which must be " + quoted_tape_names(tape_names(), " or ") + ", got '" + to_string(name) + "'");
}

namespace {

enum InputGroup { kQ = 0, kV = 1, kT = 2, kP = 3 };

}  // namespace

// r_i = F_i - dV_i - sum_jl (dG_ij/dq^l) v^j v^l + 1/2 sum_jk (dG_jk/dq^i) v^j v^k and
// a_a = sum_l (db_a/dq^l) v^l + db_a/dt - sum_jl (dA_aj/dq^l) v^j v^l, built on the graph from the
// derivative nodes, so that structural zeros of dG and dA cost nothing. velocity_derivatives
// receives the nodes of dG_v (n x n, row-major) then dA_v (k x n): sum_l dG_ij/dq^l v^l and
// sum_l dA_aj/dq^l v^l, the sums the two terms are made of.
void MechanicalSystem::append_applied_force_and_constraint_term(GraphBuilder& b, const std::vector<int>& map,
                                                                const std::vector<std::vector<int>>& deriv,
                                                                std::vector<int>& outputs,
                                                                std::vector<int>& velocity_derivatives) const {
  const int n = layout_.n, k = layout_.k;
  auto d = [&](int direction, int output_index) { return deriv[direction][base_.outputs[output_index]]; };
  auto v = [&](int j) { return b.input(n + j); };
  auto add = [&](int x, int y) { return x < 0 ? y : (y < 0 ? x : b.binary(Op::Add, x, y)); };
  auto mul = [&](int x, int y) { return (x < 0 || y < 0) ? -1 : b.binary(Op::Mul, x, y); };
  auto zero_if_none = [&](int x) { return x < 0 ? b.constant(0.0) : x; };
  velocity_derivatives.assign(n * n + k * n, -1);

  for (int i = 0; i < n; ++i) {
    int c = -1;  // c_i
    for (int j = 0; j < n; ++j) {
      int Gdot_ij = -1;  // sum_l dG_ij/dq^l v^l
      for (int l = 0; l < n; ++l) Gdot_ij = add(Gdot_ij, mul(d(l, layout_.G + i * n + j), v(l)));
      velocity_derivatives[i * n + j] = zero_if_none(Gdot_ij);
      c = add(c, mul(Gdot_ij, v(j)));
    }
    // half = 1/2 sum_jk dG_jk/dq^i v^j v^k = sum_j v^j (1/2 dG_jj v^j + sum_(k>j) sym_jk v^k) with
    // sym_jk = (dG_jk + dG_kj)/2 (the node dG_jk itself when the metric's graph is symmetric):
    // each pair {j, k} once, one product per pair instead of two per entry
    int half = -1;
    for (int j = 0; j < n; ++j) {
      int x = mul(mul(b.constant(0.5), d(i, layout_.G + j * n + j)), v(j));
      for (int kk = j + 1; kk < n; ++kk) {
        const int djk = d(i, layout_.G + j * n + kk), dkj = d(i, layout_.G + kk * n + j);
        const int sym = djk == dkj ? djk : mul(b.constant(0.5), add(djk, dkj));
        x = add(x, mul(sym, v(kk)));
      }
      half = add(half, mul(x, v(j)));
    }
    if (half >= 0) c = c < 0 ? b.unary(Op::Neg, half) : b.binary(Op::Sub, c, half);
    int r = map[base_.outputs[layout_.F + i]];
    int dV = d(i, layout_.V);
    if (c >= 0) r = b.binary(Op::Sub, r, c);
    if (dV >= 0) r = b.binary(Op::Sub, r, dV);
    outputs[layout_.r + i] = r;
  }
  for (int a = 0; a < k; ++a) {
    int term = d(n, layout_.b + a);  // db_a/dt
    for (int l = 0; l < n; ++l) term = add(term, mul(d(l, layout_.b + a), v(l)));
    int curvature = -1;
    for (int j = 0; j < n; ++j) {
      int Adot_aj = -1;
      for (int l = 0; l < n; ++l) Adot_aj = add(Adot_aj, mul(d(l, layout_.A + a * n + j), v(l)));
      velocity_derivatives[n * n + a * n + j] = zero_if_none(Adot_aj);
      curvature = add(curvature, mul(Adot_aj, v(j)));
    }
    if (curvature >= 0) term = term < 0 ? b.unary(Op::Neg, curvature) : b.binary(Op::Sub, term, curvature);
    outputs[layout_.a + a] = zero_if_none(term);
  }
}

// The full tape's outputs followed by dmu/dq, dr/dq, dr/dv, da/dq, da/dv: forward-mode AD of
// r = F - dV - c(q, v) and a = db/dq v + db/dt - (dA/dq . v) v, with the Coriolis/centrifugal
// covector c_i = sum_jl (dG_ij/dq^l) v^j v^l - 1/2 sum_jk (dG_jk/dq^i) v^j v^k written as
// c = Gdot v - dT/dq (T = 1/2 v^T G v, Gdot = sum_l dG/dq^l v^l): Gdot, Adot = sum_l dA/dq^l v^l
// and bdot = db/dq v + db/dt come from one forward sweep over the graph of G, A and b along
// (q', t') = (v, 1) (directional_derivative), and d(T - V)/dq from one backward sweep over the
// graph of G and V seeded with 1/2 v^j v^k at G_jk and -1 at V (gradient). This costs a few
// times the graph of G, A, b, V instead of one forward sweep per coordinate and the n^3
// contraction of dG/dq^i with v v; the values are the same to rounding. velocity_derivatives
// receives the nodes of Gdot (n x n, row-major) then Adot (k x n).
void MechanicalSystem::append_velocity_terms(GraphBuilder& b, const std::vector<int>& map, std::vector<int>& outputs,
                                             std::vector<int>& velocity_derivatives) const {
  const int n = layout_.n, k = layout_.k;
  auto v = [&](int j) { return b.input(n + j); };
  auto add = [&](int x, int y) { return x < 0 ? y : (y < 0 ? x : b.binary(Op::Add, x, y)); };
  auto mul = [&](int x, int y) { return (x < 0 || y < 0) ? -1 : b.binary(Op::Mul, x, y); };
  auto zero_if_none = [&](int x) { return x < 0 ? b.constant(0.0) : x; };
  // the part of the base graph a sweep needs, with its nodes mapped into the builder
  auto part = [&](int first, int end) {
    std::vector<int> targets(base_.outputs.begin() + first, base_.outputs.begin() + end);
    Subgraph sub = live_subgraph(base_.nodes, targets, base_.n_inputs);
    std::vector<int> sub_map(sub.original.size());
    for (std::size_t i = 0; i < sub.original.size(); ++i) sub_map[i] = map[sub.original[i]];
    return std::make_pair(std::move(sub), std::move(sub_map));
  };

  // forward: the time derivatives of G, A and b along (v, 1)
  auto [geometry, geometry_map] = part(layout_.G, layout_.mu);
  std::vector<int> seed(n_inputs(), -1);
  for (int l = 0; l < n; ++l) seed[l] = v(l);
  seed[time_input()] = b.constant(1.0);
  const std::vector<int> tangent = directional_derivative(geometry.graph, geometry_map, seed, b);
  auto dot = [&](int output_index) { return tangent[geometry.graph.outputs[output_index - layout_.G]]; };

  // backward: d(T - V)/dq, each distinct node of G seeded once
  auto [energy, energy_map] = part(layout_.G, layout_.A);  // G, then V
  const std::vector<int>& node = energy.graph.outputs;
  std::vector<std::pair<int, int>> seeds;
  const int half = b.constant(0.5);
  auto is_constant = [&](int x) { return energy.graph.nodes[x].op == Op::Const; };
  for (int j = 0; j < n; ++j)
    for (int kk = j; kk < n; ++kk) {
      const int jk = node[j * n + kk], kj = node[kk * n + j];
      if (is_constant(jk) && is_constant(kj)) continue;  // no derivative: no seed
      if (kk == j) {
        seeds.emplace_back(jk, mul(mul(half, v(j)), v(j)));
      } else if (jk == kj) {
        seeds.emplace_back(jk, mul(v(j), v(kk)));
      } else {
        const int w = mul(mul(half, v(j)), v(kk));
        seeds.emplace_back(jk, w);
        seeds.emplace_back(kj, w);
      }
    }
  seeds.emplace_back(node[n * n], b.constant(-1.0));
  std::vector<char> wrt(n_inputs(), 0);
  std::fill(wrt.begin(), wrt.begin() + n, 1);
  const std::vector<int> dL = gradient(energy.graph, energy_map, seeds, wrt, b);  // d(T - V)/dq

  velocity_derivatives.assign(n * n + k * n, -1);
  for (int i = 0; i < n; ++i) {
    int Gdot_v = -1;  // (Gdot v)_i
    for (int j = 0; j < n; ++j) {
      const int Gdot_ij = dot(layout_.G + i * n + j);
      velocity_derivatives[i * n + j] = zero_if_none(Gdot_ij);
      Gdot_v = add(Gdot_v, mul(Gdot_ij, v(j)));
    }
    int r = map[base_.outputs[layout_.F + i]];
    if (Gdot_v >= 0) r = b.binary(Op::Sub, r, Gdot_v);
    if (dL[i] >= 0) r = b.binary(Op::Add, r, dL[i]);
    outputs[layout_.r + i] = r;
  }
  for (int a = 0; a < k; ++a) {
    int curvature = -1;  // (Adot v)_a
    for (int j = 0; j < n; ++j) {
      const int Adot_aj = dot(layout_.A + a * n + j);
      velocity_derivatives[n * n + a * n + j] = zero_if_none(Adot_aj);
      curvature = add(curvature, mul(Adot_aj, v(j)));
    }
    int term = dot(layout_.b + a);  // db_a/dq v + db_a/dt
    if (curvature >= 0) term = term < 0 ? b.unary(Op::Neg, curvature) : b.binary(Op::Sub, term, curvature);
    outputs[layout_.a + a] = zero_if_none(term);
  }
}

namespace {

// Appends the nonzeros of the derivative block whose entry (row, col) along q^l is the node
// entry(l, row, col), direction by direction, to `outputs` (JacobianLayout); an entry that is
// the constant zero is structural and left out.
template <class Entry>
DerivativePattern append_nonzeros(const GraphBuilder& b, int n, int rows, int cols, Entry entry,
                                  std::vector<int>& outputs) {
  DerivativePattern d;
  d.offset = static_cast<int>(outputs.size());
  d.start.assign(1, 0);
  for (int l = 0; l < n; ++l) {
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        const int node = entry(l, i, j);
        const Node& x = b.nodes()[node];
        if (x.op == Op::Const && x.c == 0.0) continue;
        outputs.push_back(node);
        d.row.push_back(i);
        d.col.push_back(j);
      }
    d.start.push_back(static_cast<int>(d.row.size()));
  }
  return d;
}

}  // namespace

// The Jacobian tape (JacobianLayout): the dynamics blocks of `outputs` (the full tape's), the
// nonzeros of its dG/dq, dA/dq, db/dq, then those of dmu/dq, and dr/dq, dr/dv, da/dq, da/dv:
// forward-mode AD of the part of the graph that reaches r, a and mu (second derivatives of G
// and A, since r and a hold their first derivatives), with structural zeros left out of the tape.
Tape MechanicalSystem::build_jacobian_tape(GraphBuilder& b, const std::vector<int>& outputs,
                                           JacobianLayout& J) const {
  const int n = layout_.n, k = layout_.k;
  std::vector<int> targets;
  for (int j = layout_.mu; j < layout_.mu + k * k; ++j) targets.push_back(outputs[j]);
  for (int j = layout_.r; j < layout_.r + n + k; ++j) targets.push_back(outputs[j]);  // r, then a
  Subgraph sub = live_subgraph(b.nodes(), targets, n_inputs());
  std::vector<int> wrt(2 * n);
  for (int i = 0; i < 2 * n; ++i) wrt[i] = i;  // q, then v
  auto deriv = differentiate(sub.graph, sub.original, wrt, b);
  auto d = [&](int direction, int target) {
    int node = deriv[direction][sub.graph.outputs[target]];
    return node < 0 ? b.constant(0.0) : node;
  };
  std::vector<int> jac(outputs.begin(), outputs.begin() + layout_.dynamics);
  J.dG = append_nonzeros(b, n, n, n, [&](int l, int i, int j) { return outputs[layout_.dG + (l * n + i) * n + j]; }, jac);
  J.dA = append_nonzeros(b, n, k, n, [&](int l, int a, int j) { return outputs[layout_.dA + (l * k + a) * n + j]; }, jac);
  J.db = append_nonzeros(b, n, k, 1, [&](int l, int a, int) { return outputs[layout_.db_dq + a * n + l]; }, jac);
  J.dmu = append_nonzeros(b, n, k, k, [&](int l, int a, int c) { return d(l, a * k + c); }, jac);
  J.dr_dq = static_cast<int>(jac.size());
  J.dr_dv = J.dr_dq + n * n;
  J.da_dq = J.dr_dv + n * n;
  J.da_dv = J.da_dq + k * n;
  J.total = J.da_dv + k * n;
  jac.resize(J.total);
  for (int i = 0; i < n; ++i)
    for (int l = 0; l < n; ++l) {
      jac[J.dr_dq + i * n + l] = d(l, k * k + i);
      jac[J.dr_dv + i * n + l] = d(n + l, k * k + i);
    }
  for (int a = 0; a < k; ++a)
    for (int l = 0; l < n; ++l) {
      jac[J.da_dq + a * n + l] = d(l, k * k + n + a);
      jac[J.da_dv + a * n + l] = d(n + l, k * k + n + a);
    }
  return Tape(b.finish(std::move(jac)));
}

// Splits the projection tape at the velocity: a node depends on v when an operand does (v the
// inputs n..2n-1). The base tape computes every projection output and, after them, the nodes
// that do not depend on v but are operands of nodes that do (the kept values); the velocity
// part has the inputs [q, v, t, p, kept values] and recomputes only the v-dependent nodes and
// outputs (velocity_part_outputs_ says where each goes in the projection layout).
void MechanicalSystem::build_split_projection(Derivatives& d) const {
  const ExprGraph& g = d.projection.graph();
  const int n = layout_.n, n_nodes = static_cast<int>(g.nodes.size());
  std::vector<char> on_v(n_nodes, 0);
  for (int i = 0; i < n_nodes; ++i) {
    const Node& nd = g.nodes[i];
    if (nd.op == Op::Input) on_v[i] = nd.a >= n && nd.a < 2 * n;
    else if (nd.op != Op::Const) on_v[i] = on_v[nd.a] || (op_arity(nd.op) == 2 && on_v[nd.b]);
  }
  std::vector<int> kept_index(n_nodes, -1), kept;
  auto keep = [&](int node) {
    if (!on_v[node] && g.nodes[node].op != Op::Const && g.nodes[node].op != Op::Input && kept_index[node] < 0) {
      kept_index[node] = static_cast<int>(kept.size());
      kept.push_back(node);
    }
  };
  for (int i = 0; i < n_nodes; ++i) {
    const Node& nd = g.nodes[i];
    if (!on_v[i] || nd.op == Op::Input) continue;
    keep(nd.a);
    if (op_arity(nd.op) == 2) keep(nd.b);
  }
  std::vector<int> base_outputs = g.outputs;
  base_outputs.insert(base_outputs.end(), kept.begin(), kept.end());
  d.split_base = Tape(ExprGraph{g.n_inputs, g.nodes, base_outputs});

  GraphBuilder b(n_inputs() + static_cast<int>(kept.size()));
  std::vector<int> map(n_nodes, -1);
  for (int i = 0; i < n_nodes; ++i) {
    const Node& nd = g.nodes[i];
    if (kept_index[i] >= 0) map[i] = b.input(n_inputs() + kept_index[i]);
    else if (nd.op == Op::Input) map[i] = b.input(nd.a);
    else if (nd.op == Op::Const) map[i] = b.constant(nd.c);
    else if (on_v[i]) map[i] = b.add_node(nd.op, map[nd.a], op_arity(nd.op) == 2 ? map[nd.b] : -1, nd.n, nd.c);
  }
  std::vector<int> outputs;
  d.velocity_part_outputs.clear();
  for (int j = 0; j < static_cast<int>(g.outputs.size()); ++j)
    if (on_v[g.outputs[j]]) {
      outputs.push_back(map[g.outputs[j]]);
      d.velocity_part_outputs.push_back(j);
    }
  d.velocity_part = Tape(b.finish(outputs));
}

namespace {

std::vector<int> append_base(GraphBuilder& builder, const ExprGraph& base, int n_inputs) {
  std::vector<int> identity(n_inputs);
  for (int i = 0; i < n_inputs; ++i) identity[i] = builder.input(i);
  return builder.append(base, identity);
}

}  // namespace

MechanicalSystem::MechanicalSystem(int n, int k, int n_params, ExprGraph base, bool definite_metric,
                                   VelocityTerms velocity_terms)
    : layout_(GeometryLayout::make(n, k)), n_params_(n_params), base_(std::move(base)), velocity_terms_(velocity_terms) {
  layout_.definite_metric = definite_metric;
  if (n < 1) throw InputError("a system needs at least one coordinate");
  if (k < 0 || k >= n) throw InputError("the number of constraints must satisfy 0 <= k < n (got k = " + std::to_string(k) + ", n = " + std::to_string(n) + ")");
  if (n_params < 0) throw InputError("negative number of parameters");
  if (base_.n_inputs != n_inputs())
    throw InputError("expression graph has " + std::to_string(base_.n_inputs) + " inputs, expected " + std::to_string(n_inputs()));
  const bool given = velocity_terms == VelocityTerms::Given;
  const int expected_outputs = layout_.base_outputs() + (given ? n : 0);
  if (static_cast<int>(base_.outputs.size()) != expected_outputs)
    throw InputError("expression graph has " + std::to_string(base_.outputs.size()) + " outputs, expected " + std::to_string(expected_outputs));
  for (int o : base_.outputs)
    if (o < 0 || o >= static_cast<int>(base_.nodes.size())) throw InputError("expression graph output out of range");

  std::vector<int> group(n_inputs(), kP);
  for (int i = 0; i < n; ++i) {
    group[i] = kQ;
    group[n + i] = kV;
  }
  group[time_input()] = kT;
  auto deps = input_dependencies(base_, group);
  auto has = [](std::uint64_t mask, int g) { return (mask >> g) & 1u; };
  for (int i = 0; i < n; ++i) {
    force_velocity_ |= has(deps[layout_.F + i], kV);
    force_time_ |= has(deps[layout_.F + i], kT);
  }
  for (int j = layout_.mu; j < layout_.F; ++j) friction_position_ |= has(deps[j], kQ);
  for (int a = 0; a < k; ++a) {
    affine_time_ |= has(deps[layout_.b + a], kT);
    const Node& nd = base_.nodes[base_.outputs[layout_.b + a]];
    has_affine_ |= !(nd.op == Op::Const && nd.c == 0.0);
  }
  // Only F may depend on velocities; the lowering guarantees this, checked here for safety.
  for (int j = 0; j < layout_.F; ++j)
    if (has(deps[j], kV)) throw InputError("only the generalized force may depend on velocities");
  for (int j = 0; j < layout_.b; ++j)
    if (has(deps[j], kT)) throw InputError("the metric, potential and constraint rows may not depend on time");
  for (int j = layout_.mu; j < layout_.F; ++j)
    if (has(deps[j], kT)) throw InputError("the friction coefficients may not depend on time");
  if (definite_metric && k > 0) {
    const SparseLayout pattern = SparseLayout::from_base(base_, n, k, layout_.G, layout_.A, layout_.mu);
    layout_.partition = CoordinatePartition::find(n, k, pattern.A_outer, pattern.A_inner);
  }

  if (n <= kEagerCoordinates) build_eager(velocity_terms);
}

// dG/dq, dV/dq, dA/dq, db/dq and db/dt into the full layout's derivative blocks.
void MechanicalSystem::fill_derivative_outputs(const std::vector<std::vector<int>>& deriv, GraphBuilder& builder,
                                               std::vector<int>& outputs) const {
  const int n = layout_.n, k = layout_.k;
  auto d = [&](int direction, int output_index) {
    int node = deriv[direction][base_.outputs[output_index]];
    return node < 0 ? builder.constant(0.0) : node;
  };
  for (int l = 0; l < n; ++l)
    for (int ij = 0; ij < n * n; ++ij) outputs[layout_.dG + l * n * n + ij] = d(l, layout_.G + ij);
  for (int l = 0; l < n; ++l) outputs[layout_.dV + l] = d(l, layout_.V);
  for (int l = 0; l < n; ++l)
    for (int ai = 0; ai < k * n; ++ai) outputs[layout_.dA + l * k * n + ai] = d(l, layout_.A + ai);
  for (int a = 0; a < k; ++a) {
    for (int l = 0; l < n; ++l) outputs[layout_.db_dq + a * n + l] = d(l, layout_.b + a);
    outputs[layout_.db_dt + a] = d(n, layout_.b + a);
  }
}

std::vector<std::vector<int>> MechanicalSystem::derivatives_in_q_and_t(GraphBuilder& builder,
                                                                       const std::vector<int>& map) const {
  std::vector<int> wrt(layout_.n + 1);
  for (int l = 0; l < layout_.n; ++l) wrt[l] = l;
  wrt[layout_.n] = time_input();
  return differentiate(base_, map, wrt, builder);
}

// The tapes of a small system, all at once (r and a by whichever of the two forms is cheaper).
void MechanicalSystem::build_eager(VelocityTerms velocity_terms) {
  const int n = layout_.n;
  const bool given = velocity_terms == VelocityTerms::Given;
  GraphBuilder builder(n_inputs());
  std::vector<int> map = append_base(builder, base_, n_inputs());
  auto deriv = derivatives_in_q_and_t(builder, map);

  std::vector<int> outputs(layout_.total);
  for (int j = 0; j < layout_.base_outputs(); ++j) outputs[j] = map[base_.outputs[j]];
  // r and a two ways, equal to rounding: from the partial derivatives dG/dq^l, dA/dq^l (one forward
  // sweep per coordinate, which the full tape needs anyway) and from one forward and one backward
  // sweep (append_velocity_terms). Which costs less depends on the system (the sweeps: 44% fewer
  // operations on the rattleback, 0.5-3% fewer on the knife-edge chains of 16 and 32 links, 70%
  // more on the sleigh, where most partials vanish), so the dynamics and projection tapes take
  // the sweeps where they have a tenth fewer interpreted operations at least; the Jacobian tape
  // differentiates the first (smaller on the bicycles and the knife-edge chains).
  std::vector<int> velocity_derivatives, swept = outputs, swept_velocity;
  append_applied_force_and_constraint_term(builder, map, deriv, outputs, velocity_derivatives);
  append_velocity_terms(builder, map, swept, swept_velocity);
  auto dynamics_part = [&](const std::vector<int>& o) {
    return Tape(builder.finish(std::vector<int>(o.begin(), o.begin() + layout_.dynamics)));
  };
  Tape by_partials = dynamics_part(outputs), by_sweeps = dynamics_part(swept);
  // the sweeps when they save a tenth at least: an operation count is the cost only roughly (the
  // kinds of operations and the number of runs of one kind differ: measured equal times on the
  // bicycle's tapes at 2% fewer operations)
  auto dyn = std::make_unique<Dynamics>();
  dyn->sweeps = velocity_terms == VelocityTerms::Sweeps ||
                (velocity_terms == VelocityTerms::Cheaper && by_sweeps.n_interpreted() < 0.9 * by_partials.n_interpreted());
  fill_derivative_outputs(deriv, builder, outputs);
  // With r given, the tapes other than the full one do not compute F (r holds what they need;
  // only the full tape's users read F): F reads as NaN there, so that a use would show.
  std::vector<int> without_force = outputs;
  if (given) {  // r as given; a and the projection's Gdot, Adot from the partial derivatives
    for (int i = 0; i < n; ++i) outputs[layout_.r + i] = map[base_.outputs[layout_.base_outputs() + i]];
    without_force = outputs;
    std::fill(without_force.begin() + layout_.F, without_force.begin() + layout_.F + n,
              builder.constant(std::numeric_limits<double>::quiet_NaN()));
  }
  const std::vector<int> jacobian_outputs = without_force;
  if (dyn->sweeps) {
    std::copy(swept.begin() + layout_.r, swept.begin() + layout_.dynamics, outputs.begin() + layout_.r);
    std::copy(swept.begin() + layout_.r, swept.begin() + layout_.dynamics, without_force.begin() + layout_.r);
    velocity_derivatives = swept_velocity;
  }
  auto der = std::make_unique<Derivatives>();
  der->tape = Tape(builder.finish(outputs));
  dyn->tape = given ? dynamics_part(without_force) : std::move(dyn->sweeps ? by_sweeps : by_partials);
  std::vector<int> projection_outputs(without_force.begin(), without_force.begin() + layout_.dynamics);
  projection_outputs.insert(projection_outputs.end(), velocity_derivatives.begin(), velocity_derivatives.end());
  der->projection = Tape(builder.finish(projection_outputs));
  build_split_projection(*der);
  dyn->constraints = Tape(builder.finish(constraint_outputs(outputs, builder)));
  der->jacobian = build_jacobian_tape(builder, jacobian_outputs, der->jacobian_layout);
  std::call_once(dynamics_once_, [&] { dynamics_ = std::move(dyn); });
  std::call_once(derivatives_once_, [&] { derivatives_ = std::move(der); });
}

// The constraint tape's outputs: the layout up to mu with G and V zero (only A and b computed).
std::vector<int> MechanicalSystem::constraint_outputs(const std::vector<int>& outputs, GraphBuilder& builder) const {
  std::vector<int> constraint(outputs.begin(), outputs.begin() + layout_.mu);
  std::fill(constraint.begin(), constraint.begin() + layout_.A, builder.constant(0.0));
  return constraint;
}

std::vector<int> MechanicalSystem::swept_outputs(GraphBuilder& builder, const std::vector<int>& map,
                                                 std::vector<int>& velocity_derivatives) const {
  std::vector<int> outputs(layout_.dynamics);
  for (int j = 0; j < layout_.base_outputs(); ++j) outputs[j] = map[base_.outputs[j]];
  append_velocity_terms(builder, map, outputs, velocity_derivatives);
  if (velocity_terms_ == VelocityTerms::Given)
    for (int i = 0; i < layout_.n; ++i) outputs[layout_.r + i] = map[base_.outputs[layout_.base_outputs() + i]];
  return outputs;
}

// F as NaN in the tapes other than the full one when r is given (as build_eager).
void MechanicalSystem::hide_force(std::vector<int>& outputs, GraphBuilder& builder) const {
  if (velocity_terms_ != VelocityTerms::Given) return;
  std::fill(outputs.begin() + layout_.F, outputs.begin() + layout_.F + layout_.n,
            builder.constant(std::numeric_limits<double>::quiet_NaN()));
}

MechanicalSystem::Dynamics MechanicalSystem::build_dynamics() const {
  GraphBuilder builder(n_inputs());
  std::vector<int> map = append_base(builder, base_, n_inputs()), velocity_derivatives;
  std::vector<int> outputs = swept_outputs(builder, map, velocity_derivatives);
  Dynamics d;
  d.sweeps = true;
  d.constraints = Tape(builder.finish(constraint_outputs(outputs, builder)));
  hide_force(outputs, builder);
  d.tape = Tape(builder.finish(outputs));
  return d;
}

MechanicalSystem::Derivatives MechanicalSystem::build_derivatives() const {
  GraphBuilder builder(n_inputs());
  std::vector<int> map = append_base(builder, base_, n_inputs()), velocity_derivatives;
  auto deriv = derivatives_in_q_and_t(builder, map);
  std::vector<int> outputs = swept_outputs(builder, map, velocity_derivatives);
  outputs.resize(layout_.total);
  fill_derivative_outputs(deriv, builder, outputs);
  Derivatives d;
  d.tape = Tape(builder.finish(outputs));
  hide_force(outputs, builder);
  std::vector<int> projection_outputs(outputs.begin(), outputs.begin() + layout_.dynamics);
  projection_outputs.insert(projection_outputs.end(), velocity_derivatives.begin(), velocity_derivatives.end());
  d.projection = Tape(builder.finish(projection_outputs));
  build_split_projection(d);
  d.jacobian = build_jacobian_tape(builder, outputs, d.jacobian_layout);
  return d;
}

MechanicalSystem::Sparse MechanicalSystem::build_sparse() const {
  const int n = layout_.n, k = layout_.k;
  GraphBuilder builder(n_inputs());
  std::vector<int> map = append_base(builder, base_, n_inputs()), velocity_derivatives;
  const std::vector<int> dense = swept_outputs(builder, map, velocity_derivatives);
  Sparse s;
  s.layout = SparseLayout::from_base(base_, n, k, layout_.G, layout_.A, layout_.mu);
  const SparseLayout& L = s.layout;
  std::vector<int> outputs;
  outputs.reserve(L.total);
  for (int j = 0; j < n; ++j)
    for (int e = L.G_outer[j]; e < L.G_outer[j + 1]; ++e) outputs.push_back(dense[layout_.G + L.G_inner[e] * n + j]);
  for (int a = 0; a < k; ++a)
    for (int e = L.A_outer[a]; e < L.A_outer[a + 1]; ++e) outputs.push_back(dense[layout_.A + a * n + L.A_inner[e]]);
  for (int a = 0; a < k; ++a) outputs.push_back(dense[layout_.b + a]);
  for (int a = 0; a < k; ++a)
    for (int e = L.mu_outer[a]; e < L.mu_outer[a + 1]; ++e) outputs.push_back(dense[layout_.mu + a * k + L.mu_inner[e]]);
  for (int i = 0; i < n; ++i) outputs.push_back(dense[layout_.r + i]);
  for (int a = 0; a < k; ++a) outputs.push_back(dense[layout_.a + a]);
  s.constraints = Tape(builder.finish(std::vector<int>(outputs.begin() + L.A, outputs.begin() + L.mu)));
  s.tape = Tape(builder.finish(std::move(outputs)));
  s.output_inputs = output_input_sets(s.tape.graph(), 2 * n);
  return s;
}

const MechanicalSystem::Dynamics& MechanicalSystem::dynamics() const {
  std::call_once(dynamics_once_, [this] { dynamics_ = std::make_unique<Dynamics>(build_dynamics()); });
  return *dynamics_;
}

const MechanicalSystem::Derivatives& MechanicalSystem::derivatives() const {
  std::call_once(derivatives_once_, [this] { derivatives_ = std::make_unique<Derivatives>(build_derivatives()); });
  return *derivatives_;
}

const MechanicalSystem::Sparse& MechanicalSystem::sparse() const {
  std::call_once(sparse_once_, [this] { sparse_ = std::make_unique<Sparse>(build_sparse()); });
  return *sparse_;
}

}  // namespace nonholo
