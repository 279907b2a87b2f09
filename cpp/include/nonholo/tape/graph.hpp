// Expression graphs in SSA form: node i is computed from earlier nodes only.
//
// GraphBuilder hash-conses nodes (identical subexpressions are stored once) and folds
// constants and the trivial identities (x+0, x*1, x*0, --x, ...), so that graphs produced by
// differentiation stay compact. `differentiate` is forward-mode automatic differentiation by
// source transformation: it appends to a builder, for each node, the node of its derivative.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nonholo/tape/op.hpp"

namespace nonholo {

struct Node {
  Op op = Op::Const;
  int a = -1;      // first operand (node index), or the input index for Op::Input
  int b = -1;      // second operand (node index)
  int n = 0;       // integer exponent of Op::PowInt
  double c = 0.0;  // value of Op::Const
};

struct ExprGraph {
  int n_inputs = 0;
  std::vector<Node> nodes;
  std::vector<int> outputs;  // node index of each output
};

class GraphBuilder {
 public:
  explicit GraphBuilder(int n_inputs) : n_inputs_(n_inputs) {}

  int n_inputs() const { return n_inputs_; }
  int input(int i);
  int constant(double c);
  int unary(Op op, int a);
  int binary(Op op, int a, int b);
  int powi(int a, int n);
  // Entry point for serialized nodes: dispatches on the arity of `op`.
  int add_node(Op op, int a, int b, int n, double c);

  // Copies every node of `g` into this builder; returns the new index of each node of g.
  std::vector<int> append(const ExprGraph& g, const std::vector<int>& input_map);

  ExprGraph finish(std::vector<int> outputs) const;
  const std::vector<Node>& nodes() const { return nodes_; }

 private:
  struct Key {
    Op op;
    int a, b, n;
    std::uint64_t c;
    bool operator==(const Key& o) const {
      return op == o.op && a == o.a && b == o.b && n == o.n && c == o.c;
    }
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const;
  };

  bool constant_value(int i, double* c) const;
  bool is_constant(int i, double c) const;
  int intern(const Node& node);

  int n_inputs_;
  std::vector<Node> nodes_;
  std::unordered_map<Key, int, KeyHash> memo_;
};

// d(node)/d(inputs[wrt[k]]) for every node of g, built into `builder` where `node_map` maps the
// nodes of g to builder nodes. Result[k][i] is the builder node of the derivative of node i in
// direction k, or -1 where it is structurally zero.
std::vector<std::vector<int>> differentiate(const ExprGraph& g, const std::vector<int>& node_map,
                                            const std::vector<int>& wrt, GraphBuilder& builder);

// Forward-mode AD along one direction given by nodes: the tangent of input i of g is the
// builder node seed[i] (-1: zero), so that one sweep gives sum_i d(node)/d(input i) seed_i for
// every node (a time derivative along a velocity, say, instead of one sweep per input).
// Result[i] is the builder node of node i's tangent, or -1 where it is structurally zero.
std::vector<int> directional_derivative(const ExprGraph& g, const std::vector<int>& node_map,
                                        const std::vector<int>& seed, GraphBuilder& builder);

// Reverse-mode AD: the gradient of the scalar s = sum_(node, weight) in seeds weight * node
// with respect to each input of g (weights are builder nodes, nodes are nodes of g), built into
// `builder` by one backward sweep over the nodes of g that reach a seeded node. Result[i] is
// the builder node of ds/d(input i), or -1 where it is structurally zero. Only the inputs with
// wrt[i] set are differentiated (the sweep skips nodes that depend on none of them).
std::vector<int> gradient(const ExprGraph& g, const std::vector<int>& node_map,
                          const std::vector<std::pair<int, int>>& seeds, const std::vector<char>& wrt,
                          GraphBuilder& builder);

// The nodes among `nodes` that reach `outputs`, renumbered in their order: graph.nodes[i] is
// nodes[original[i]] with operands renumbered, graph.outputs the new indices of `outputs`.
// Differentiating `graph` with node_map = original appends derivatives of the needed nodes only.
struct Subgraph {
  ExprGraph graph;
  std::vector<int> original;
};
Subgraph live_subgraph(const std::vector<Node>& nodes, const std::vector<int>& outputs, int n_inputs);

// For each output of g, a bitmask over inputs (up to 64 groups given by `group_of_input`) of
// the groups it depends on. Used to detect, e.g., velocity- or time-dependent forces.
std::vector<std::uint64_t> input_dependencies(const ExprGraph& g, const std::vector<int>& group_of_input);

}  // namespace nonholo
