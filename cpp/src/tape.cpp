#include "nonholo/tape/tape.hpp"

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
