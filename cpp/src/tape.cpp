#include "nonholo/tape/tape.hpp"

#include <algorithm>
#include <climits>
#include <sstream>

namespace nonholo {

Tape::Tape(ExprGraph graph) : graph_(std::move(graph)) {
  const auto& nodes = graph_.nodes;
  const int n_nodes = static_cast<int>(nodes.size());

  // Only nodes that reach an output are compiled.
  std::vector<char> live(n_nodes, 0);
  for (int o : graph_.outputs) live[o] = 1;
  for (int i = n_nodes - 1; i >= 0; --i) {
    if (!live[i] || nodes[i].op == Op::Const || nodes[i].op == Op::Input) continue;
    live[nodes[i].a] = 1;
    if (op_arity(nodes[i].op) == 2) live[nodes[i].b] = 1;
  }

  std::vector<int> last_use(n_nodes, -1);
  for (int i = 0; i < n_nodes; ++i) {
    if (!live[i] || nodes[i].op == Op::Const || nodes[i].op == Op::Input) continue;
    last_use[nodes[i].a] = i;
    if (op_arity(nodes[i].op) == 2) last_use[nodes[i].b] = i;
  }
  for (int o : graph_.outputs) last_use[o] = INT_MAX;

  // Linear-scan slot allocation: operands whose last use is this node are freed first, so
  // the result may overwrite an operand (every op reads its operands before writing).
  std::vector<int> slot(n_nodes, -1);
  std::vector<int> free_slots;
  for (int i = 0; i < n_nodes; ++i) {
    if (!live[i]) continue;
    const Node& nd = nodes[i];
    Instr ins{nd.op, -1, -1, -1, nd.n, nd.c};
    if (nd.op == Op::Input) {
      ins.a = nd.a;
    } else if (nd.op != Op::Const) {
      ins.a = slot[nd.a];
      if (op_arity(nd.op) == 2) ins.b = slot[nd.b];
      if (last_use[nd.a] == i) free_slots.push_back(slot[nd.a]);
      if (op_arity(nd.op) == 2 && last_use[nd.b] == i && nd.b != nd.a) free_slots.push_back(slot[nd.b]);
    }
    if (!free_slots.empty()) {
      slot[i] = free_slots.back();
      free_slots.pop_back();
    } else {
      slot[i] = n_slots_++;
    }
    ins.out = slot[i];
    code_.push_back(ins);
    if (last_use[i] < 0) free_slots.push_back(slot[i]);  // dead value (cannot happen for live nodes)
  }
  output_slots_.reserve(graph_.outputs.size());
  for (int o : graph_.outputs) output_slots_.push_back(slot[o]);
  build_program();
}

// The interpreter's program (tape.hpp): the live nodes; a product whose only reader is another
// product, a sum or a difference computed inside that reader (a*(b*c), a*b + c, a*(b*c) - d,
// ...); inputs and constants in fixed slots; the operations in level order, runs of one kind;
// temporaries in slots reused after their last read (a result may overwrite its own operands:
// every operation reads them first).
void Tape::build_program() {
  const auto& nodes = graph_.nodes;
  const int n_nodes = static_cast<int>(nodes.size());
  const int ni = graph_.n_inputs;
  auto is_leaf = [&](int i) { return nodes[i].op == Op::Const || nodes[i].op == Op::Input; };
  auto binary = [&](int i) { return op_arity(nodes[i].op) == 2; };

  std::vector<int> uses(n_nodes, 0);
  std::vector<char> live(n_nodes, 0);
  for (int o : graph_.outputs) {
    live[o] = 1;
    ++uses[o];
  }
  for (int i = n_nodes - 1; i >= 0; --i) {
    if (!live[i] || is_leaf(i)) continue;
    live[nodes[i].a] = 1;
    ++uses[nodes[i].a];
    if (binary(i)) {
      live[nodes[i].b] = 1;
      ++uses[nodes[i].b];
    }
  }

  // Fixed slots: inputs, then the constants in order of appearance.
  std::vector<int> slot(n_nodes, -1);
  constants_.clear();
  for (int i = 0; i < n_nodes; ++i) {
    if (!live[i]) continue;
    if (nodes[i].op == Op::Input) slot[i] = nodes[i].a;
    if (nodes[i].op == Op::Const) {
      slot[i] = ni + static_cast<int>(constants_.size());
      constants_.push_back(nodes[i].c);
    }
  }
  const int fixed = ni + static_cast<int>(constants_.size());

  // Node-level instructions: operands are node indices (-1: none), `node` the value computed.
  struct Pending {
    VOp op;
    Op fn;
    int node;
    int x[4];
    int exponent;
  };
  std::vector<Pending> form(n_nodes);  // the instruction of each node, before it is absorbed
  std::vector<char> absorbed(n_nodes, 0);
  // A product (plain or of three factors) used once, not yet absorbed: its instruction can move
  // into the reader's.
  auto movable = [&](int m, bool three) {
    if (nodes[m].op != Op::Mul || uses[m] != 1 || absorbed[m]) return false;
    return form[m].op == VOp::Mul || (three && (form[m].op == VOp::Mul3R || form[m].op == VOp::Mul3L));
  };
  std::vector<Pending> pending;
  for (int i = 0; i < n_nodes; ++i) {
    if (!live[i] || is_leaf(i)) continue;
    const Node& nd = nodes[i];
    Pending p{VOp::Unary, nd.op, i, {nd.a, binary(i) ? nd.b : -1, -1, -1}, 0};
    auto absorb = [&](int m) {
      absorbed[m] = 1;
      return form[m];
    };
    switch (nd.op) {
      case Op::Add:
      case Op::Sub: {
        const bool add = nd.op == Op::Add;
        int m = -1, other = -1;
        bool product_first = true;
        if (movable(nd.a, true)) {
          m = nd.a;
          other = nd.b;
        } else if (movable(nd.b, true)) {
          m = nd.b;
          other = nd.a;
          product_first = false;
        }
        if (m < 0) {
          p.op = add ? VOp::Add : VOp::Sub;
          break;
        }
        const Pending prod = absorb(m);
        p.x[0] = prod.x[0];
        p.x[1] = prod.x[1];
        if (prod.op == VOp::Mul) {
          p.x[2] = other;
          p.op = add ? VOp::MulAdd : (product_first ? VOp::MulSub : VOp::SubMul);
        } else {
          const bool right = prod.op == VOp::Mul3R;
          p.x[2] = prod.x[2];
          p.x[3] = other;
          p.op = add ? (right ? VOp::Mul3RAdd : VOp::Mul3LAdd)
                     : (product_first ? (right ? VOp::Mul3RSub : VOp::Mul3LSub) : (right ? VOp::SubMul3R : VOp::SubMul3L));
        }
        break;
      }
      case Op::Mul:
        p.op = VOp::Mul;
        if (nd.a != nd.b && movable(nd.b, false)) {  // a * (b0 * b1)
          const Pending prod = absorb(nd.b);
          p = {VOp::Mul3R, nd.op, i, {nd.a, prod.x[0], prod.x[1], -1}, 0};
        } else if (nd.a != nd.b && movable(nd.a, false)) {  // (a0 * a1) * b
          const Pending prod = absorb(nd.a);
          p = {VOp::Mul3L, nd.op, i, {prod.x[0], prod.x[1], nd.b, -1}, 0};
        }
        break;
      case Op::Div: p.op = VOp::Div; break;
      case Op::Neg: p.op = VOp::Neg; break;
      case Op::PowInt:
        p.op = nd.n == 2 ? VOp::Square : VOp::PowInt;
        p.exponent = nd.n;
        break;
      default: p.op = binary(i) ? VOp::Binary : VOp::Unary; break;
    }
    form[i] = p;
    pending.push_back(p);
  }

  // Absorbed products have no instruction of their own.
  std::vector<Pending> kept;
  kept.reserve(pending.size());
  for (const Pending& p : pending)
    if (!absorbed[p.node]) kept.push_back(p);
  // Level schedule: an operation's level is one more than its operands' (inputs and constants
  // are level 0); sorted by (level, kind), the program is runs of independent operations of one
  // kind. The sort is stable: within a run, graph order.
  {
    std::vector<int> level(n_nodes, 0);
    for (const Pending& p : kept) {
      int l = 0;
      for (int x : p.x)
        if (x >= 0) l = std::max(l, level[x]);
      level[p.node] = l + 1;
    }
    // operands of absorbed products are read by their reader: its level already covers them
    std::stable_sort(kept.begin(), kept.end(), [&](const Pending& u, const Pending& v) {
      if (level[u.node] != level[v.node]) return level[u.node] < level[v.node];
      if (u.op != v.op) return u.op < v.op;
      return u.fn < v.fn;
    });
  }
  const int n_kept = static_cast<int>(kept.size());
  std::vector<int> last_read(n_nodes, -1);
  for (int j = 0; j < n_kept; ++j)
    for (int x : kept[j].x)
      if (x >= 0) last_read[x] = j;
  for (int o : graph_.outputs) last_read[o] = INT_MAX;

  runs_.clear();
  args_.clear();
  n_interpreted_ = n_kept;
  std::vector<int> free_slots;
  int n_slots = fixed;
  for (int j = 0; j < n_kept; ++j) {
    const Pending& p = kept[j];
    std::uint32_t operand[4];
    for (int k = 0; k < 4; ++k) operand[k] = p.x[k] >= 0 ? static_cast<std::uint32_t>(slot[p.x[k]]) : 0u;
    if (p.op == VOp::PowInt) operand[1] = static_cast<std::uint32_t>(p.exponent);
    for (int k = 0; k < 4; ++k) {  // operands read for the last time free their slots first
      const int x = p.x[k];
      if (x < 0 || slot[x] < fixed || last_read[x] != j) continue;
      bool seen = false;
      for (int m = 0; m < k; ++m) seen |= p.x[m] == x;
      if (!seen) free_slots.push_back(slot[x]);
    }
    if (!free_slots.empty()) {
      slot[p.node] = free_slots.back();
      free_slots.pop_back();
    } else {
      slot[p.node] = n_slots++;
    }
    if (runs_.empty() || runs_.back().op != p.op || runs_.back().fn != p.fn) runs_.push_back(Run{p.op, p.fn, 0});
    ++runs_.back().count;
    args_.push_back(static_cast<std::uint32_t>(slot[p.node]));
    for (int k = 0; k < width(p.op) - 1; ++k) args_.push_back(operand[k]);
  }
  n_work_ = n_slots;
  output_work_.clear();
  for (int o : graph_.outputs) output_work_.push_back(static_cast<std::uint32_t>(slot[o]));
}

int Tape::width(VOp op) {
  switch (op) {
    case VOp::Neg: case VOp::Square: case VOp::Unary: return 2;
    case VOp::Add: case VOp::Sub: case VOp::Mul: case VOp::Div: case VOp::PowInt: case VOp::Binary: return 3;
    case VOp::MulAdd: case VOp::MulSub: case VOp::SubMul: case VOp::Mul3R: case VOp::Mul3L: return 4;
    default: return 5;
  }
}

std::string Tape::disassemble() const {
  std::ostringstream os;
  os << "tape: " << n_inputs() << " inputs, " << n_outputs() << " outputs, " << code_.size()
     << " instructions, " << n_slots_ << " work slots\n";
  for (const Instr& ins : code_) {
    os << "  w[" << ins.out << "] = " << op_name(ins.op);
    if (ins.op == Op::Const) os << " " << ins.c;
    else if (ins.op == Op::Input) os << " in[" << ins.a << "]";
    else {
      os << " w[" << ins.a << "]";
      if (ins.b >= 0) os << ", w[" << ins.b << "]";
      if (ins.op == Op::PowInt) os << " ^ " << ins.n;
    }
    os << "\n";
  }
  for (std::size_t j = 0; j < output_slots_.size(); ++j) os << "  out[" << j << "] = w[" << output_slots_[j] << "]\n";
  return os.str();
}

}  // namespace nonholo
