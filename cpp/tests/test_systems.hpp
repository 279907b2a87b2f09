// Test systems built directly as expression graphs (no SymPy): the inputs are the system's
// [q (n), v (n), t, p], the outputs those MechanicalSystem and Frame expect.
#pragma once

#include <memory>

#include "nonholo/frame.hpp"
#include "nonholo/mechanical_system.hpp"
#include "nonholo/tape/graph.hpp"

namespace nonholo::testing {

// The Chaplygin sleigh (coordinates x, y, phi; parameters m, I, a, mu): metric
// [[m, 0, -m a sin], [0, m, m a cos], [-m a sin, m a cos, I + m a^2]], no potential, the blade
// constraint -sin(phi) x' + cos(phi) y' = 0, friction mu.
inline std::shared_ptr<MechanicalSystem> sleigh() {
  GraphBuilder b(11);
  const int phi = b.input(2), m = b.input(7), I = b.input(8), a = b.input(9), mu = b.input(10);
  const int s = b.unary(Op::Sin, phi), c = b.unary(Op::Cos, phi), zero = b.constant(0.0);
  const int ma = b.binary(Op::Mul, m, a);
  const int mas = b.binary(Op::Mul, ma, s), mac = b.binary(Op::Mul, ma, c);
  const int nmas = b.unary(Op::Neg, mas);
  const int J = b.binary(Op::Add, I, b.binary(Op::Mul, ma, a));
  std::vector<int> out = {m, zero, nmas, zero, m, mac, nmas, mac, J,  // G
                          zero,                                        // V
                          b.unary(Op::Neg, s), c, zero,                // A
                          zero,                                        // b
                          mu,                                          // mu
                          zero, zero, zero};                           // F
  return std::make_shared<MechanicalSystem>(3, 1, 4, b.finish(out));
}

inline std::vector<double> sleigh_params() { return {1.0, 1.0, 0.2, 1.0}; }

// Eldering's body frame of the sleigh: X_1 = (cos, sin, 0), X_2 = (0, 0, 1) span D, X_3 = (-sin, cos, 0).
inline std::shared_ptr<Frame> sleigh_frame(std::shared_ptr<const MechanicalSystem> system) {
  GraphBuilder b(11);
  const int phi = b.input(2);
  const int s = b.unary(Op::Sin, phi), c = b.unary(Op::Cos, phi), zero = b.constant(0.0), one = b.constant(1.0);
  // row-major X(i, j), component i of X_j
  std::vector<int> out = {c, zero, b.unary(Op::Neg, s),
                          s, zero, c,
                          zero, one, zero};
  return std::make_shared<Frame>(std::move(system), b.finish(out));
}

}  // namespace nonholo::testing
