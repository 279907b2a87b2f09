#include "nonholo/tape/graph.hpp"

#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "nonholo/errors.hpp"

namespace nonholo {

const char* op_name(Op op) {
  static const char* names[] = {"const", "input", "add",   "sub",   "mul",  "div",   "neg",
                                "powi",  "pow",   "sqrt",  "exp",   "log",  "sin",   "cos",
                                "tan",   "asin",  "acos",  "atan",  "atan2", "sinh", "cosh",
                                "tanh",  "asinh", "acosh", "atanh", "abs",  "sign"};
  static_assert(sizeof(names) / sizeof(names[0]) == kOpCount, "op_name table out of date");
  int i = static_cast<int>(op);
  return (i >= 0 && i < kOpCount) ? names[i] : "?";
}

std::size_t GraphBuilder::KeyHash::operator()(const Key& k) const {
  std::size_t h = static_cast<std::size_t>(k.op);
  auto mix = [&h](std::uint64_t x) { h ^= std::hash<std::uint64_t>{}(x) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(static_cast<std::uint64_t>(k.a));
  mix(static_cast<std::uint64_t>(k.b));
  mix(static_cast<std::uint64_t>(k.n));
  mix(k.c);
  return h;
}

int GraphBuilder::intern(const Node& node) {
  std::uint64_t bits = 0;
  if (node.op == Op::Const) {
    double c = node.c == 0.0 ? 0.0 : node.c;  // +0 and -0 are one constant
    std::memcpy(&bits, &c, sizeof bits);
  }
  Key key{node.op, node.a, node.b, node.n, bits};
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  nodes_.push_back(node);
  int id = static_cast<int>(nodes_.size()) - 1;
  memo_.emplace(key, id);
  return id;
}

bool GraphBuilder::constant_value(int i, double* c) const {
  if (nodes_[i].op != Op::Const) return false;
  *c = nodes_[i].c;
  return true;
}

bool GraphBuilder::is_constant(int i, double c) const {
  double v;
  return constant_value(i, &v) && v == c;
}

int GraphBuilder::input(int i) {
  if (i < 0 || i >= n_inputs_) throw InputError("tape input index out of range");
  Node node;
  node.op = Op::Input;
  node.a = i;
  return intern(node);
}

int GraphBuilder::constant(double c) {
  Node node;
  node.op = Op::Const;
  node.c = c;
  return intern(node);
}

int GraphBuilder::powi(int a, int n) {
  if (n == 0) return constant(1.0);
  if (n == 1) return a;
  double ca;
  if (constant_value(a, &ca)) return constant(nonholo::powi(ca, n));
  Node node;
  node.op = Op::PowInt;
  node.a = a;
  node.n = n;
  return intern(node);
}

int GraphBuilder::unary(Op op, int a) {
  if (a < 0 || a >= static_cast<int>(nodes_.size())) throw InputError("tape operand out of range");
  if (op_arity(op) != 1 || op == Op::PowInt) throw InputError(std::string("not a unary op: ") + op_name(op));
  double ca;
  if (constant_value(a, &ca)) return constant(apply_op<double>(op, ca, 0.0, 0));
  if (op == Op::Neg && nodes_[a].op == Op::Neg) return nodes_[a].a;
  Node node;
  node.op = op;
  node.a = a;
  return intern(node);
}

int GraphBuilder::binary(Op op, int a, int b) {
  int size = static_cast<int>(nodes_.size());
  if (a < 0 || a >= size || b < 0 || b >= size) throw InputError("tape operand out of range");
  if (op_arity(op) != 2) throw InputError(std::string("not a binary op: ") + op_name(op));
  double ca, cb;
  bool ka = constant_value(a, &ca), kb = constant_value(b, &cb);
  if (ka && kb) return constant(apply_op<double>(op, ca, cb, 0));
  switch (op) {
    case Op::Add:
      if (ka && ca == 0.0) return b;
      if (kb && cb == 0.0) return a;
      break;
    case Op::Sub:
      if (kb && cb == 0.0) return a;
      if (ka && ca == 0.0) return unary(Op::Neg, b);
      if (a == b) return constant(0.0);
      break;
    case Op::Mul:
      if ((ka && ca == 0.0) || (kb && cb == 0.0)) return constant(0.0);
      if (ka && ca == 1.0) return b;
      if (kb && cb == 1.0) return a;
      if (ka && ca == -1.0) return unary(Op::Neg, b);
      if (kb && cb == -1.0) return unary(Op::Neg, a);
      break;
    case Op::Div:
      if (ka && ca == 0.0) return constant(0.0);
      if (kb && cb == 1.0) return a;
      if (kb && cb == -1.0) return unary(Op::Neg, a);
      break;
    case Op::Pow:
      if (kb && cb == std::round(cb) && std::abs(cb) <= 64) return powi(a, static_cast<int>(cb));
      if (kb && cb == 0.5) return unary(Op::Sqrt, a);
      break;
    default:
      break;
  }
  if (op_commutes(op) && a > b) std::swap(a, b);
  Node node;
  node.op = op;
  node.a = a;
  node.b = b;
  return intern(node);
}

int GraphBuilder::add_node(Op op, int a, int b, int n, double c) {
  switch (op) {
    case Op::Const: return constant(c);
    case Op::Input: return input(a);
    case Op::PowInt: return powi(a, n);
    default: return op_arity(op) == 2 ? binary(op, a, b) : unary(op, a);
  }
}

std::vector<int> GraphBuilder::append(const ExprGraph& g, const std::vector<int>& input_map) {
  std::vector<int> map(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& nd = g.nodes[i];
    switch (nd.op) {
      case Op::Const: map[i] = constant(nd.c); break;
      case Op::Input: map[i] = input_map[nd.a]; break;
      case Op::PowInt: map[i] = powi(map[nd.a], nd.n); break;
      default:
        map[i] = op_arity(nd.op) == 2 ? binary(nd.op, map[nd.a], map[nd.b]) : unary(nd.op, map[nd.a]);
    }
  }
  return map;
}

ExprGraph GraphBuilder::finish(std::vector<int> outputs) const {
  ExprGraph g;
  g.n_inputs = n_inputs_;
  g.nodes = nodes_;
  g.outputs = std::move(outputs);
  return g;
}

namespace {

// Derivative of one node given the derivatives of its operands (-1 = zero).
class DerivativeRule {
 public:
  DerivativeRule(GraphBuilder& b) : b_(b) {}

  int sum(int x, int y) {
    if (x < 0) return y;
    if (y < 0) return x;
    return b_.binary(Op::Add, x, y);
  }
  int scale(int factor, int dx) { return dx < 0 ? -1 : b_.binary(Op::Mul, factor, dx); }
  int c(double v) { return b_.constant(v); }
  int mul(int x, int y) { return b_.binary(Op::Mul, x, y); }
  int div(int x, int y) { return b_.binary(Op::Div, x, y); }
  int add(int x, int y) { return b_.binary(Op::Add, x, y); }
  int sub(int x, int y) { return b_.binary(Op::Sub, x, y); }
  int f(Op op, int x) { return b_.unary(op, x); }
  int sq(int x) { return b_.powi(x, 2); }

  // self: node of the value, u/w: operand nodes, du/dw: operand derivatives.
  int operator()(Op op, int n, int self, int u, int w, int du, int dw) {
    switch (op) {
      case Op::Add: return sum(du, dw);
      case Op::Sub: return dw < 0 ? du : (du < 0 ? f(Op::Neg, dw) : sub(du, dw));
      case Op::Neg: return du < 0 ? -1 : f(Op::Neg, du);
      case Op::Mul: return sum(scale(w, du), scale(u, dw));
      case Op::Div: {
        // d(u/w) = (du - (u/w) dw) / w
        int num = dw < 0 ? du : (du < 0 ? f(Op::Neg, mul(self, dw)) : sub(du, mul(self, dw)));
        return num < 0 ? -1 : div(num, w);
      }
      case Op::PowInt: return scale(mul(c(n), b_.powi(u, n - 1)), du);
      case Op::Pow: {
        // d(u^w) = u^w (dw log u + w du / u)
        int t1 = dw < 0 ? -1 : mul(dw, f(Op::Log, u));
        int t2 = du < 0 ? -1 : div(mul(w, du), u);
        int s = sum(t1, t2);
        return s < 0 ? -1 : mul(self, s);
      }
      case Op::Sqrt: return du < 0 ? -1 : div(du, mul(c(2.0), self));
      case Op::Exp: return scale(self, du);
      case Op::Log: return du < 0 ? -1 : div(du, u);
      case Op::Sin: return scale(f(Op::Cos, u), du);
      case Op::Cos: return du < 0 ? -1 : f(Op::Neg, mul(f(Op::Sin, u), du));
      case Op::Tan: return scale(add(c(1.0), sq(self)), du);
      case Op::Asin: return du < 0 ? -1 : div(du, f(Op::Sqrt, sub(c(1.0), sq(u))));
      case Op::Acos: return du < 0 ? -1 : f(Op::Neg, div(du, f(Op::Sqrt, sub(c(1.0), sq(u)))));
      case Op::Atan: return du < 0 ? -1 : div(du, add(c(1.0), sq(u)));
      case Op::Atan2: {
        // atan2(y=u, x=w): (w du - u dw) / (u^2 + w^2)
        int num = dw < 0 ? mul(w, du) : (du < 0 ? f(Op::Neg, mul(u, dw)) : sub(mul(w, du), mul(u, dw)));
        if (du < 0 && dw < 0) return -1;
        return div(num, add(sq(u), sq(w)));
      }
      case Op::Sinh: return scale(f(Op::Cosh, u), du);
      case Op::Cosh: return scale(f(Op::Sinh, u), du);
      case Op::Tanh: return scale(sub(c(1.0), sq(self)), du);
      case Op::Asinh: return du < 0 ? -1 : div(du, f(Op::Sqrt, add(sq(u), c(1.0))));
      case Op::Acosh: return du < 0 ? -1 : div(du, f(Op::Sqrt, sub(sq(u), c(1.0))));
      case Op::Atanh: return du < 0 ? -1 : div(du, sub(c(1.0), sq(u)));
      case Op::Abs: return scale(f(Op::Sign, u), du);
      case Op::Sign: return -1;
      default: return -1;
    }
  }

 private:
  GraphBuilder& b_;
};

}  // namespace

std::vector<std::vector<int>> differentiate(const ExprGraph& g, const std::vector<int>& node_map,
                                            const std::vector<int>& wrt, GraphBuilder& builder) {
  DerivativeRule rule(builder);
  std::vector<std::vector<int>> result(wrt.size(), std::vector<int>(g.nodes.size(), -1));
  for (std::size_t k = 0; k < wrt.size(); ++k) {
    std::vector<int>& d = result[k];
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& nd = g.nodes[i];
      if (nd.op == Op::Const) continue;
      if (nd.op == Op::Input) {
        if (nd.a == wrt[k]) d[i] = builder.constant(1.0);
        continue;
      }
      int u = node_map[nd.a];
      int du = d[nd.a];
      int w = -1, dw = -1;
      if (op_arity(nd.op) == 2) {
        w = node_map[nd.b];
        dw = d[nd.b];
      }
      if (du < 0 && dw < 0) continue;
      d[i] = rule(nd.op, nd.n, node_map[i], u, w, du, dw);
    }
  }
  return result;
}

std::vector<int> directional_derivative(const ExprGraph& g, const std::vector<int>& node_map,
                                        const std::vector<int>& seed, GraphBuilder& builder) {
  if (static_cast<int>(seed.size()) != g.n_inputs) throw InputError("directional_derivative: one seed per input");
  DerivativeRule rule(builder);
  std::vector<int> d(g.nodes.size(), -1);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& nd = g.nodes[i];
    if (nd.op == Op::Const) continue;
    if (nd.op == Op::Input) {
      d[i] = seed[nd.a];
      continue;
    }
    const int du = d[nd.a], dw = op_arity(nd.op) == 2 ? d[nd.b] : -1;
    if (du < 0 && dw < 0) continue;
    d[i] = rule(nd.op, nd.n, node_map[i], node_map[nd.a], op_arity(nd.op) == 2 ? node_map[nd.b] : -1, du, dw);
  }
  return d;
}

namespace {

// One backward sweep: adjoints of the nodes of g as builder nodes (-1 = zero), pushed from each
// node to its operands by the partial derivatives of its operation (those of DerivativeRule).
class AdjointSweep {
 public:
  AdjointSweep(const ExprGraph& g, const std::vector<int>& node_map, const std::vector<char>& active, GraphBuilder& b)
      : g_(g), map_(node_map), active_(active), b_(b), adj_(g.nodes.size(), -1) {}

  // adj[node] += x (sign +1) or -= x (sign -1), for an active node.
  void accumulate(int node, int x, int sign = 1) {
    if (x < 0 || !active_[node]) return;
    int& a = adj_[node];
    if (sign > 0) a = a < 0 ? x : b_.binary(Op::Add, a, x);
    else a = a < 0 ? b_.unary(Op::Neg, x) : b_.binary(Op::Sub, a, x);
  }

  // Pushes the adjoint of node i to its operands.
  void push(int i) {
    const Node& nd = g_.nodes[i];
    const int A = adj_[i];
    if (A < 0 || nd.op == Op::Const || nd.op == Op::Input) return;
    const bool binary = op_arity(nd.op) == 2;
    const int x = nd.a, y = binary ? nd.b : -1;
    const int self = map_[i], u = map_[x], w = binary ? map_[y] : -1;
    auto mul = [&](int p, int q) { return b_.binary(Op::Mul, p, q); };
    auto div = [&](int p, int q) { return b_.binary(Op::Div, p, q); };
    auto c = [&](double v) { return b_.constant(v); };
    auto f = [&](Op op, int p) { return b_.unary(op, p); };
    auto sq = [&](int p) { return b_.powi(p, 2); };
    switch (nd.op) {
      case Op::Add: accumulate(x, A); accumulate(y, A); break;
      case Op::Sub: accumulate(x, A); accumulate(y, A, -1); break;
      case Op::Neg: accumulate(x, A, -1); break;
      case Op::Mul:
        if (active_[x]) accumulate(x, mul(A, w));
        if (active_[y]) accumulate(y, mul(A, u));
        break;
      case Op::Div: {  // d(u/w) = du / w - (u/w) dw / w
        const int q = div(A, w);
        accumulate(x, q);
        if (active_[y]) accumulate(y, mul(q, self), -1);
        break;
      }
      case Op::PowInt: accumulate(x, mul(A, mul(c(nd.n), b_.powi(u, nd.n - 1)))); break;
      case Op::Pow:  // d(u^w) = u^w (w du / u + log u dw)
        if (active_[x]) accumulate(x, mul(A, div(mul(w, self), u)));
        if (active_[y]) accumulate(y, mul(A, mul(self, f(Op::Log, u))));
        break;
      case Op::Sqrt: accumulate(x, div(A, mul(c(2.0), self))); break;
      case Op::Exp: accumulate(x, mul(A, self)); break;
      case Op::Log: accumulate(x, div(A, u)); break;
      case Op::Sin: accumulate(x, mul(A, f(Op::Cos, u))); break;
      case Op::Cos: accumulate(x, mul(A, f(Op::Sin, u)), -1); break;
      case Op::Tan: accumulate(x, mul(A, b_.binary(Op::Add, c(1.0), sq(self)))); break;
      case Op::Asin: accumulate(x, div(A, f(Op::Sqrt, b_.binary(Op::Sub, c(1.0), sq(u))))); break;
      case Op::Acos: accumulate(x, div(A, f(Op::Sqrt, b_.binary(Op::Sub, c(1.0), sq(u)))), -1); break;
      case Op::Atan: accumulate(x, div(A, b_.binary(Op::Add, c(1.0), sq(u)))); break;
      case Op::Atan2: {  // atan2(y=u, x=w): (w du - u dw) / (u^2 + w^2)
        const int q = div(A, b_.binary(Op::Add, sq(u), sq(w)));
        if (active_[x]) accumulate(x, mul(q, w));
        if (active_[y]) accumulate(y, mul(q, u), -1);
        break;
      }
      case Op::Sinh: accumulate(x, mul(A, f(Op::Cosh, u))); break;
      case Op::Cosh: accumulate(x, mul(A, f(Op::Sinh, u))); break;
      case Op::Tanh: accumulate(x, mul(A, b_.binary(Op::Sub, c(1.0), sq(self)))); break;
      case Op::Asinh: accumulate(x, div(A, f(Op::Sqrt, b_.binary(Op::Add, sq(u), c(1.0))))); break;
      case Op::Acosh: accumulate(x, div(A, f(Op::Sqrt, b_.binary(Op::Sub, sq(u), c(1.0))))); break;
      case Op::Atanh: accumulate(x, div(A, b_.binary(Op::Sub, c(1.0), sq(u)))); break;
      case Op::Abs: accumulate(x, mul(A, f(Op::Sign, u))); break;
      default: break;  // Sign: piecewise constant
    }
  }

  int adjoint(int node) const { return adj_[node]; }

 private:
  const ExprGraph& g_;
  const std::vector<int>& map_;
  const std::vector<char>& active_;
  GraphBuilder& b_;
  std::vector<int> adj_;
};

}  // namespace

std::vector<int> gradient(const ExprGraph& g, const std::vector<int>& node_map,
                          const std::vector<std::pair<int, int>>& seeds, const std::vector<char>& wrt,
                          GraphBuilder& builder) {
  if (static_cast<int>(wrt.size()) != g.n_inputs) throw InputError("gradient: one wrt flag per input");
  const int n_nodes = static_cast<int>(g.nodes.size());
  std::vector<char> active(n_nodes, 0);  // depends on a differentiated input
  for (int i = 0; i < n_nodes; ++i) {
    const Node& nd = g.nodes[i];
    if (nd.op == Op::Input) active[i] = wrt[nd.a];
    else if (nd.op != Op::Const) active[i] = active[nd.a] || (op_arity(nd.op) == 2 && active[nd.b]);
  }
  AdjointSweep sweep(g, node_map, active, builder);
  for (const auto& [node, weight] : seeds) sweep.accumulate(node, weight);
  for (int i = n_nodes - 1; i >= 0; --i) sweep.push(i);
  std::vector<int> result(g.n_inputs, -1);
  for (int i = 0; i < n_nodes; ++i) {
    const Node& nd = g.nodes[i];
    const int a = sweep.adjoint(i);
    if (nd.op != Op::Input || a < 0) continue;
    result[nd.a] = result[nd.a] < 0 ? a : builder.binary(Op::Add, result[nd.a], a);
  }
  return result;
}

Subgraph live_subgraph(const std::vector<Node>& nodes, const std::vector<int>& outputs, int n_inputs) {
  const int n_nodes = static_cast<int>(nodes.size());
  std::vector<char> live(n_nodes, 0);
  for (int o : outputs) live[o] = 1;
  for (int i = n_nodes - 1; i >= 0; --i) {
    if (!live[i] || nodes[i].op == Op::Const || nodes[i].op == Op::Input) continue;
    live[nodes[i].a] = 1;
    if (op_arity(nodes[i].op) == 2) live[nodes[i].b] = 1;
  }
  Subgraph sub;
  sub.graph.n_inputs = n_inputs;
  std::vector<int> renumber(n_nodes, -1);
  for (int i = 0; i < n_nodes; ++i) {
    if (!live[i]) continue;
    Node nd = nodes[i];
    if (nd.op != Op::Const && nd.op != Op::Input) {
      nd.a = renumber[nd.a];
      if (op_arity(nd.op) == 2) nd.b = renumber[nd.b];
    }
    renumber[i] = static_cast<int>(sub.graph.nodes.size());
    sub.graph.nodes.push_back(nd);
    sub.original.push_back(i);
  }
  for (int o : outputs) sub.graph.outputs.push_back(renumber[o]);
  return sub;
}

std::vector<std::uint64_t> input_dependencies(const ExprGraph& g, const std::vector<int>& group_of_input) {
  std::vector<std::uint64_t> mask(g.nodes.size(), 0);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& nd = g.nodes[i];
    if (nd.op == Op::Input) {
      mask[i] = std::uint64_t(1) << group_of_input[nd.a];
    } else if (nd.op != Op::Const) {
      mask[i] = mask[nd.a];
      if (op_arity(nd.op) == 2) mask[i] |= mask[nd.b];
    }
  }
  std::vector<std::uint64_t> out;
  out.reserve(g.outputs.size());
  for (int o : g.outputs) out.push_back(mask[o]);
  return out;
}

}  // namespace nonholo
