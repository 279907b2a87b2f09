// Hot loops allocate nothing: after one warm-up evaluation (which sizes the workspace), the
// right-hand side and Jacobian of a model, and a step of the discrete integrator, must not call
// operator new. A counting replacement of the global operator new checks it.
//
// To check another model, add a line to main() (e.g. the reduced model once it is allocation-free):
//     expect_allocation_free("reduced", *make_reduced_model(system, 2), y, params_with_eps);
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "check.hpp"
#include "nonholo/discrete.hpp"
#include "nonholo/models.hpp"
#include "test_systems.hpp"

// operator new below takes its memory from malloc, so every delete frees with free; GCC cannot
// see that pairing across the replacement functions.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {

std::atomic<long> allocations{0};

}  // namespace

void* operator new(std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

using namespace nonholo;

// Allocations of f() on its second and later calls (the first sizes the workspace).
template <class F>
long allocations_after_warm_up(F&& f) {
  f();
  const long before = allocations.load();
  for (int i = 0; i < 3; ++i) f();
  return allocations.load() - before;
}

void expect_allocation_free(const std::string& name, const Model& model, const std::vector<double>& y,
                            const std::vector<double>& p) {
  auto ws = model.workspace();
  std::vector<double> ydot(model.n_states()), J(model.n_states() * model.n_states());
  const long rhs = allocations_after_warm_up([&] { model.rhs(0.3, y.data(), p.data(), ydot.data(), *ws); });
  const long jac = allocations_after_warm_up([&] { model.jacobian(0.3, y.data(), p.data(), J.data(), *ws); });
  if (rhs != 0 || jac != 0)
    std::cerr << name << ": " << rhs << " allocations in 3 right-hand sides, " << jac << " in 3 Jacobians\n";
  NONHOLO_CHECK_EQ(rhs, 0L);
  NONHOLO_CHECK_EQ(jac, 0L);
}

}  // namespace

int main() {
  // the counting operator new is the one in use
  const long probe = allocations_after_warm_up([] { std::vector<double> v(16); v[3] = 1.0; });
  NONHOLO_CHECK_EQ(probe, 3L);

  auto system = testing::sleigh();
  auto frame = testing::sleigh_frame(system);
  const std::vector<double> p = testing::sleigh_params();

  // [x, y, phi, v^1 (along the blade), v^2 (turning rate)]
  expect_allocation_free("hamel", *make_hamel_model(frame), {0.1, -0.2, 0.4, -1.5, 1.0}, p);
  // [q, v^alpha, mu]
  expect_allocation_free("frame_vakonomic", *make_frame_vakonomic_model(frame), {0.1, -0.2, 0.4, -1.5, 1.0, 0.3}, p);

  DiscreteIntegrator discrete(system, 0.05);
  DiscreteOptions options;
  DiscreteWork work;
  const double q[3] = {0.0, 0.0, 0.4}, pk[3] = {-1.5 * std::cos(0.4), -1.5 * std::sin(0.4), 1.2};
  double q_next[3], p_next[3], lambda[1];
  const long step = allocations_after_warm_up(
      [&] { discrete.step(0.0, q, pk, p.data(), q_next, p_next, lambda, options, work); });
  if (step != 0) std::cerr << "discrete: " << step << " allocations in 3 steps\n";
  NONHOLO_CHECK_EQ(step, 0L);
  return testing::failures;
}
