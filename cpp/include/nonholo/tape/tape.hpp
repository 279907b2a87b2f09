// A compiled expression tape: a flat instruction list over a work array with reused slots
// (a value's slot is freed after its last use). One evaluation loop serves every scalar type.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "nonholo/tape/compiled.hpp"
#include "nonholo/tape/graph.hpp"

namespace nonholo {

class Tape {
 public:
  Tape() = default;
  explicit Tape(ExprGraph graph);

  int n_inputs() const { return graph_.n_inputs; }
  int n_outputs() const { return static_cast<int>(graph_.outputs.size()); }
  int n_slots() const { return n_slots_; }
  int n_instructions() const { return static_cast<int>(code_.size()); }
  const ExprGraph& graph() const { return graph_; }

  // outputs[j] = f_j(inputs); `work` is resized on first use and reused by the caller.
  template <class S>
  void eval(const S* inputs, S* outputs, std::vector<S>& work) const;

  // Human-readable listing of the instructions (for debugging a model).
  std::string disassemble() const;

  struct Instr {
    Op op;
    int out;
    int a;
    int b;
    int n;
    double c;
  };
  const std::vector<Instr>& instructions() const { return code_; }
  const std::vector<int>& output_slots() const { return output_slots_; }

  // Double evaluations go through `kernel` (the C translation of this tape, tape_c_source)
  // from now on; nullptr returns to the interpreter. Not thread-safe against concurrent eval:
  // attach before integrating.
  void attach(std::shared_ptr<const CompiledKernel> kernel) const {
    kernel_ = std::move(kernel);
    compiled_ = kernel_ ? kernel_->function() : nullptr;
  }
  bool compiled() const { return compiled_ != nullptr; }

 private:
  ExprGraph graph_;
  std::vector<Instr> code_;
  std::vector<int> output_slots_;
  int n_slots_ = 0;
  mutable std::shared_ptr<const CompiledKernel> kernel_;
  mutable CompiledTapeFn compiled_ = nullptr;
};

template <class S>
void Tape::eval(const S* inputs, S* outputs, std::vector<S>& work) const {
  if constexpr (std::is_same_v<S, double>) {
    if (compiled_ != nullptr) {
      compiled_(inputs, outputs);
      return;
    }
  }
  if (static_cast<int>(work.size()) < n_slots_) work.resize(n_slots_);
  S* w = work.data();
  for (const Instr& ins : code_) {
    switch (ins.op) {
      case Op::Const: w[ins.out] = S(ins.c); break;
      case Op::Input: w[ins.out] = inputs[ins.a]; break;
      case Op::Add: w[ins.out] = w[ins.a] + w[ins.b]; break;
      case Op::Sub: w[ins.out] = w[ins.a] - w[ins.b]; break;
      case Op::Mul: w[ins.out] = w[ins.a] * w[ins.b]; break;
      case Op::Div: w[ins.out] = w[ins.a] / w[ins.b]; break;
      default: {
        const S& b = ins.b >= 0 ? w[ins.b] : w[ins.a];
        w[ins.out] = apply_op<S>(ins.op, w[ins.a], b, ins.n);
      }
    }
  }
  for (std::size_t j = 0; j < output_slots_.size(); ++j) outputs[j] = w[output_slots_[j]];
}

}  // namespace nonholo
