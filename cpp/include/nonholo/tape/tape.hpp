// A compiled expression tape, in two forms of the same computation:
//  - `instructions()`: one instruction per live graph node, in graph order, over a work array
//    with reused slots (a value's slot is freed after its last use): the form the C translation
//    (tape_c_source) reads;
//  - the interpreter's program, built from the graph: inputs and constants in fixed slots at the
//    start of its work array (no instructions for them); a product whose only reader is another
//    product, a sum or a difference computed inside that reader (a*(b*c), a*b + c, c - a*(b*c),
//    ...: the same roundings in the same order, so values are bit for bit those of the graph);
//    then a level schedule: each operation one level above its latest operand, sorted by (level,
//    kind), so that the program is a few hundred runs of independent operations of one kind, each
//    a tight loop over 32-bit slot indices. Dispatch is once per run, not per operation, and the
//    operations of a run do not wait on each other (a sequential interpreter pays a mispredicted
//    indirect branch and a store-to-load chain per operation: 5x slower on the bicycle).
// One evaluation loop serves every scalar type.
#pragma once

#include <atomic>
#include <cstdint>
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
  // Work slots of `instructions()` (the C translation's form).
  int n_slots() const { return n_slots_; }
  // Operations of the graph that reach an output (one per entry of `instructions()`).
  int n_instructions() const { return static_cast<int>(code_.size()); }
  // The interpreter: operations after fusion, runs of one kind, and the length of its work array.
  int n_interpreted() const { return n_interpreted_; }
  int n_runs() const { return static_cast<int>(runs_.size()); }
  int n_work() const { return n_work_; }
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
  // from now on; nullptr returns to the interpreter. Attaching a kernel to a tape that has none
  // is safe while other threads evaluate it (compile="auto" swaps a finished build into a
  // running integration: the kernel's values are the interpreter's bit for bit, so the run's
  // result does not depend on when); detaching or replacing a kernel is not: do it between runs.
  void attach(std::shared_ptr<const CompiledKernel> kernel) const {
    CompiledTapeFn fn = kernel ? kernel->function() : nullptr;
    if (fn == nullptr) compiled_.fn.store(nullptr, std::memory_order_release);
    kernel_ = std::move(kernel);  // the shared object stays loaded while attached
    if (fn != nullptr) compiled_.fn.store(fn, std::memory_order_release);
  }
  bool compiled() const { return compiled_.fn.load(std::memory_order_acquire) != nullptr; }

 private:
  // The interpreter's operations, on w = work and the operands [out, a, b, c, d] of each:
  //   Add, Sub, Mul, Div: w[a] op w[b];  Neg: -w[a];  Square: w[a] * w[a];  PowInt: w[a]^b;
  //   MulAdd: P + w[c], MulSub: P - w[c], SubMul: w[c] - P, with P = w[a] * w[b];
  //   Mul3R, Mul3L: P3 = w[a] * (w[b] * w[c]) or (w[a] * w[b]) * w[c];
  //   Mul3RAdd/LAdd: P3 + w[d], Mul3RSub/LSub: P3 - w[d], SubMul3R/L: w[d] - P3;
  //   Unary, Binary: apply_op(fn, w[a], w[b]).
  // Factors keep the graph's order (products of Taylor series round differently when swapped);
  // terms of a sum may swap (exact in every scalar type).
  enum class VOp : std::uint8_t {
    Add, Sub, Mul, Div, Neg, Square, PowInt, MulAdd, MulSub, SubMul,
    Mul3R, Mul3L, Mul3RAdd, Mul3LAdd, Mul3RSub, Mul3LSub, SubMul3R, SubMul3L,
    Unary, Binary
  };
  // `count` consecutive operations of one kind; their operands (width(op) each) are in args_.
  struct Run {
    VOp op;
    Op fn;  // the graph op of Unary and Binary
    std::uint32_t count;
  };
  static int width(VOp op);
  void build_program();

  ExprGraph graph_;
  std::vector<Instr> code_;
  std::vector<int> output_slots_;
  int n_slots_ = 0;
  // Interpreter: work = [inputs | constants | temporaries].
  std::vector<Run> runs_;
  std::vector<std::uint32_t> args_;
  std::vector<double> constants_;
  std::vector<std::uint32_t> output_work_;
  int n_interpreted_ = 0;
  int n_work_ = 0;
  // The compiled function, read by every double evaluation and written by attach (atomic, with
  // value semantics so that tapes stay copyable).
  struct CompiledSlot {
    std::atomic<CompiledTapeFn> fn{nullptr};
    CompiledSlot() = default;
    CompiledSlot(const CompiledSlot& o) : fn(o.fn.load(std::memory_order_acquire)) {}
    CompiledSlot& operator=(const CompiledSlot& o) {
      fn.store(o.fn.load(std::memory_order_acquire), std::memory_order_release);
      return *this;
    }
  };
  mutable std::shared_ptr<const CompiledKernel> kernel_;
  mutable CompiledSlot compiled_;
};

template <class S>
void Tape::eval(const S* inputs, S* outputs, std::vector<S>& work) const {
  if constexpr (std::is_same_v<S, double>) {
    if (CompiledTapeFn fn = compiled_.fn.load(std::memory_order_acquire)) {
      fn(inputs, outputs);
      return;
    }
  }
  if (static_cast<int>(work.size()) < n_work_) work.resize(n_work_);
  S* w = work.data();
  const int ni = n_inputs();
  for (int i = 0; i < ni; ++i) w[i] = inputs[i];
  const int nc = static_cast<int>(constants_.size());
  for (int i = 0; i < nc; ++i) w[ni + i] = S(constants_[i]);
  const std::uint32_t* p = args_.data();
  for (const Run& r : runs_) {
    const std::uint32_t count = r.count;
    switch (r.op) {
#define NONHOLO_TAPE_RUN(name, n_args, expr)                  \
  case VOp::name:                                             \
    for (std::uint32_t k = 0; k < count; ++k, p += n_args) { \
      w[p[0]] = expr;                                         \
    }                                                         \
    break;
      NONHOLO_TAPE_RUN(Add, 3, w[p[1]] + w[p[2]])
      NONHOLO_TAPE_RUN(Sub, 3, w[p[1]] - w[p[2]])
      NONHOLO_TAPE_RUN(Mul, 3, w[p[1]] * w[p[2]])
      NONHOLO_TAPE_RUN(Div, 3, w[p[1]] / w[p[2]])
      NONHOLO_TAPE_RUN(Neg, 2, -w[p[1]])
      NONHOLO_TAPE_RUN(Square, 2, w[p[1]] * w[p[1]])
      NONHOLO_TAPE_RUN(PowInt, 3, powi(w[p[1]], static_cast<int>(p[2])))
      NONHOLO_TAPE_RUN(MulAdd, 4, w[p[1]] * w[p[2]] + w[p[3]])
      NONHOLO_TAPE_RUN(MulSub, 4, w[p[1]] * w[p[2]] - w[p[3]])
      NONHOLO_TAPE_RUN(SubMul, 4, w[p[3]] - w[p[1]] * w[p[2]])
      NONHOLO_TAPE_RUN(Mul3R, 4, w[p[1]] * (w[p[2]] * w[p[3]]))
      NONHOLO_TAPE_RUN(Mul3L, 4, (w[p[1]] * w[p[2]]) * w[p[3]])
      NONHOLO_TAPE_RUN(Mul3RAdd, 5, w[p[1]] * (w[p[2]] * w[p[3]]) + w[p[4]])
      NONHOLO_TAPE_RUN(Mul3LAdd, 5, (w[p[1]] * w[p[2]]) * w[p[3]] + w[p[4]])
      NONHOLO_TAPE_RUN(Mul3RSub, 5, w[p[1]] * (w[p[2]] * w[p[3]]) - w[p[4]])
      NONHOLO_TAPE_RUN(Mul3LSub, 5, (w[p[1]] * w[p[2]]) * w[p[3]] - w[p[4]])
      NONHOLO_TAPE_RUN(SubMul3R, 5, w[p[4]] - w[p[1]] * (w[p[2]] * w[p[3]]))
      NONHOLO_TAPE_RUN(SubMul3L, 5, w[p[4]] - (w[p[1]] * w[p[2]]) * w[p[3]])
      NONHOLO_TAPE_RUN(Unary, 2, apply_op<S>(r.fn, w[p[1]], w[p[1]], 0))
      NONHOLO_TAPE_RUN(Binary, 3, apply_op<S>(r.fn, w[p[1]], w[p[2]], 0))
#undef NONHOLO_TAPE_RUN
      default: break;
    }
  }
  const std::size_t no = output_work_.size();
  for (std::size_t j = 0; j < no; ++j) outputs[j] = w[output_work_[j]];
}

}  // namespace nonholo
