// An anholonomic frame X(q) = [X_1 .. X_n] adapted to the constraint distribution D: the first
// m = n - k columns span D (Mestdag-Crampin 2010 section 3; notes/004 section 3.0). The frame
// arrives as an expression graph with the system's inputs [q, v, t, p] and outputs X (n*n,
// row-major: X(i, j) is component i of the vector X_j); its derivatives dX/dq^l come from
// forward-mode AD of the graph, compiled into one tape with X.
#pragma once

#include <memory>
#include <vector>

#include "nonholo/mechanical_system.hpp"

namespace nonholo {

template <class S>
struct FrameGeometry {
  int n = 0;
  std::vector<S> in, out, work;
  RowMatMap<S> X() const { return {out.data(), n, n}; }
  RowMatMap<S> dX(int l) const { return {out.data() + (1 + l) * n * n, n, n}; }  // dX/dq^l
};

class Frame {
 public:
  Frame(std::shared_ptr<const MechanicalSystem> system, ExprGraph graph);

  const MechanicalSystem& system() const { return *system_; }
  const std::shared_ptr<const MechanicalSystem>& system_ptr() const { return system_; }
  int n() const { return system_->n(); }
  int rank() const { return system_->n() - system_->k(); }  // m = dim D
  const Tape& tape() const { return tape_; }

  template <class S, class P>
  void evaluate(const S* q, const P* p, FrameGeometry<S>& f) const {
    const int n = this->n();
    f.n = n;
    f.in.assign(system_->n_inputs(), S(0.0));
    for (int i = 0; i < n; ++i) f.in[i] = q[i];
    for (int i = 0; i < system_->n_params(); ++i) f.in[2 * n + 1 + i] = S(p[i]);
    f.out.resize(tape_.n_outputs());
    tape_.eval(f.in.data(), f.out.data(), f.work);
  }

 private:
  std::shared_ptr<const MechanicalSystem> system_;
  Tape tape_;
};

}  // namespace nonholo
