// A tape translated to straight-line C (one local per instruction, so the C compiler allocates
// registers and removes what the interpreter pays per instruction: dispatch and work-array
// traffic), and the loaded shared object that holds the compiled function. The interpreter is
// the reference and the fallback: a Tape with no kernel attached evaluates as before.
#pragma once

#include <memory>
#include <string>

namespace nonholo {

class Tape;

// outputs[j] = f_j(inputs), doubles only.
using CompiledTapeFn = void (*)(const double* inputs, double* outputs);

// C99 source of one function `void <name>(const double* in, double* out)` computing `tape`
// exactly as Tape::eval<double> does (same operations in the same order, constants bit-exact).
std::string tape_c_source(const Tape& tape, const std::string& name);

// A shared object opened with dlopen, closed when the last Tape using it is gone.
class CompiledKernel {
 public:
  // Loads `symbol` from the shared object at `path`; throws InputError naming the problem.
  CompiledKernel(const std::string& path, const std::string& symbol);
  ~CompiledKernel();
  CompiledKernel(const CompiledKernel&) = delete;
  CompiledKernel& operator=(const CompiledKernel&) = delete;

  CompiledTapeFn function() const { return fn_; }

 private:
  void* handle_ = nullptr;
  CompiledTapeFn fn_ = nullptr;
};

}  // namespace nonholo
