// Hot loops allocate nothing: after one warm-up evaluation (which sizes the workspace), the
// right-hand side and Jacobian of a model, and a step of the discrete integrator, must not
// allocate. A counting malloc checks it.
//
// To check another model, add a line to main() (e.g. the reduced model once it is allocation-free):
//     expect_allocation_free("reduced", *make_reduced_model(system, 2), y, params_with_eps);
#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "check.hpp"
#include "nonholo/discrete.hpp"
#include "nonholo/frame.hpp"
#include "nonholo/models.hpp"
#include "nonholo/models/friction.hpp"
#include "nonholo/models/nonholonomic.hpp"
#include "test_systems.hpp"

// Every heap allocation goes through malloc: operator new (std::vector, std::string) calls it,
// and so does Eigen's aligned allocator for dynamic matrices. The test interposes glibc's malloc
// family and counts the calls.
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);
}

namespace {

std::atomic<long> allocations{0};
bool counting = true;  // false under valgrind, whose malloc replaces the counting one

// An allocation count checked only where the counting malloc is the one called.
#define EXPECT_ALLOCATIONS(count, expected) \
  do {                                      \
    if (counting) NONHOLO_CHECK_EQ(count, expected); \
  } while (0)

}  // namespace

extern "C" {
void* malloc(std::size_t size) noexcept {
  ++allocations;
  return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) noexcept {
  ++allocations;
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) noexcept {
  ++allocations;
  return __libc_realloc(p, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  ++allocations;
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) noexcept {
  ++allocations;
  *out = __libc_memalign(alignment, size);
  return *out ? 0 : 12;  // ENOMEM
}
void free(void* p) noexcept { __libc_free(p); }
}

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
  if (counting && (rhs != 0 || jac != 0))
    std::cerr << name << ": " << rhs << " allocations in 3 right-hand sides, " << jac << " in 3 Jacobians\n";
  EXPECT_ALLOCATIONS(rhs, 0L);
  EXPECT_ALLOCATIONS(jac, 0L);
}

// Both Jacobian paths of a model, whichever jacobian() picks: implicit differentiation of its
// linear solves and dual numbers through the tape.
void expect_jacobian_paths_allocation_free(const Model& model, const std::vector<double>& y,
                                           const std::vector<double>& p) {
  auto ws = model.workspace();
  std::vector<double> J(model.n_states() * model.n_states());
  const JacobianPaths& paths = *model.jacobian_paths();
  const long implicit = allocations_after_warm_up([&] { paths.implicit_jacobian(0.3, y.data(), p.data(), J.data(), *ws); });
  const long dual = allocations_after_warm_up([&] { paths.jacobian_dual(0.3, y.data(), p.data(), J.data(), *ws); });
  EXPECT_ALLOCATIONS(implicit, 0L);
  EXPECT_ALLOCATIONS(dual, 0L);
}

}  // namespace

int main() {
  // Under valgrind (make cpp-test's memcheck pass) malloc is valgrind's, nothing is counted, and the
  // run checks only that these paths read no uninitialised memory; the counts are checked without it.
  if (RUNNING_ON_VALGRIND) counting = false;
  // the counting malloc sees both operator new and Eigen's allocator
  const long probe = allocations_after_warm_up([] {
    std::vector<double> v(16);
    VecX<double> w = VecX<double>::Zero(16);
    v[3] = w(3);
  });
  EXPECT_ALLOCATIONS(probe, 6L);

  auto system = testing::sleigh();
  auto frame = testing::sleigh_frame(system);
  const std::vector<double> p = testing::sleigh_params();

  // [x, y, phi, v^1 (along the blade), v^2 (turning rate)]
  expect_allocation_free("hamel", *make_hamel_model(frame), {0.1, -0.2, 0.4, -1.5, 1.0}, p);
  // [q, v^alpha, mu]
  expect_allocation_free("frame_vakonomic", *make_frame_vakonomic_model(frame), {0.1, -0.2, 0.4, -1.5, 1.0, 0.3}, p);

  // the friction and nonholonomic models, both Jacobians (implicit differentiation and dual numbers)
  const std::vector<double> y = {0.1, -0.2, 0.4, -1.5, 0.3, 1.0};
  std::vector<double> p_eps = p;
  p_eps.push_back(1e-3);
  const FrictionModel<> friction(system);
  const NonholonomicModel nonholonomic(system);
  expect_allocation_free("friction", friction, y, p_eps);
  expect_allocation_free("nonholonomic", nonholonomic, y, p);
  expect_jacobian_paths_allocation_free(friction, y, p_eps);
  expect_jacobian_paths_allocation_free(nonholonomic, y, p);

  // the reduced models of orders 0 and 1 in the sleigh's Voronets frame (y solved for): the
  // M-free path of models/reduced.hpp, right-hand side and dual Jacobian; state [x, y, phi, x', phi']
  auto voronets = std::make_shared<Frame>(system, std::vector<int>{1});
  for (int order : {0, 1})
    expect_allocation_free("reduced_frame order " + std::to_string(order), *make_reduced_frame_model(voronets, order),
                           {0.1, -0.2, 0.4, -1.5, 1.0}, p_eps);

  DiscreteIntegrator discrete(system, 0.05);
  DiscreteOptions options;
  DiscreteWork work;
  const double q[3] = {0.0, 0.0, 0.4}, pk[3] = {-1.5 * std::cos(0.4), -1.5 * std::sin(0.4), 1.2};
  double q_next[3], p_next[3], lambda[1] = {0.0};  // lambda is also Newton's initial guess
  const long step = allocations_after_warm_up(
      [&] { discrete.step(0.0, q, pk, p.data(), q_next, p_next, lambda, options, work); });
  if (counting && step != 0) std::cerr << "discrete: " << step << " allocations in 3 steps\n";
  EXPECT_ALLOCATIONS(step, 0L);
  return testing::failures;
}
