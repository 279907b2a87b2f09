// The measured cost of a Jacobian (measured_costs.hpp) and the policy's decisions from it, with
// the times injected through a scripted Stopwatch: the batches' sizes follow the first calls, the
// least disturbed batch of each kind gives its cost (a batch slowed by another process's load is
// ignored), the model's calls are really made (one plus the batches), a model keeps its measurement,
// and the JacobianPolicy built on a measured cost chooses its start-up mode,
// its reuse and its tests' winner from it (a winner by less than kSwitchMargin does not switch).
#include <cmath>
#include <stdexcept>
#include <vector>

#include "check.hpp"
#include "nonholo/jacobian_policy.hpp"
#include "nonholo/measured_costs.hpp"
#include "nonholo/models/friction.hpp"
#include "test_systems.hpp"

using namespace nonholo;

namespace {

// Returns the scripted times in order (after running the batch, so the calls are made).
class ScriptedStopwatch : public Stopwatch {
 public:
  explicit ScriptedStopwatch(std::vector<double> times) : times_(std::move(times)) {}
  double nanoseconds(const std::function<void()>& batch) override {
    batch();
    return times_.at(next_++);
  }
  std::size_t used() const { return next_; }

 private:
  std::vector<double> times_;
  std::size_t next_ = 0;
};

// A model that counts its calls.
class CountingModel : public FrictionModel<> {
 public:
  using FrictionModel<>::FrictionModel;
  void rhs(double t, const double* y, const double* p, double* ydot, Workspace& ws) const override {
    ++rhs_calls;
    FrictionModel<>::rhs(t, y, p, ydot, ws);
  }
  void jacobian(double t, const double* y, const double* p, double* J, Workspace& ws) const override {
    ++jacobian_calls;
    FrictionModel<>::jacobian(t, y, p, J, ws);
  }
  mutable long rhs_calls = 0, jacobian_calls = 0;
};

// A model whose right-hand side throws (as a model does outside its domain).
class ThrowingModel : public FrictionModel<> {
 public:
  using FrictionModel<>::FrictionModel;
  void rhs(double, const double*, const double*, double*, Workspace&) const override {
    throw std::runtime_error("outside the domain");
  }
};

// Per step, reuse advances dt_reuse with rhs_reuse right-hand sides and a Jacobian every 20
// steps; refresh advances dt_refresh with rhs_refresh and one Jacobian (as test_jacobian_policy.cpp).
struct Dynamics {
  double dt_reuse, rhs_reuse, dt_refresh, rhs_refresh;
};

bool refreshing_after(JacobianPolicy& policy, const Dynamics& d, long steps) {
  JacobianPolicy::Counters c;
  c.t_end = 1e9;
  double rhs = 0.0;
  for (long i = 0; i < steps; ++i) {
    const bool every = policy.refreshing();
    c.h = every ? d.dt_refresh : d.dt_reuse;
    c.t += c.h;
    ++c.steps;
    rhs += every ? d.rhs_refresh : d.rhs_reuse;
    c.rhs = static_cast<long>(rhs);
    if (every || i % 20 == 0) {
      ++c.jacobians;
      ++c.setups;
    }
    policy.after_step(c);
  }
  return policy.refreshing();
}

}  // namespace

int main() {
  {  // batch sizes: about kBatchNanoseconds of calls, at least one, at most kMaxBatchCalls
    NONHOLO_CHECK_EQ(batch_calls(100.0), 40L);
    NONHOLO_CHECK_EQ(batch_calls(3000.0), 2L);
    NONHOLO_CHECK_EQ(batch_calls(1e6), 1L);
    NONHOLO_CHECK_EQ(batch_calls(1.0), kMaxBatchCalls);
    NONHOLO_CHECK_EQ(batch_calls(0.0), kMaxBatchCalls);
  }
  {  // the least disturbed batch of each: a batch slowed 5x or 10x by the machine's load changes nothing
    const MeasuredCosts quiet = least_disturbed({1000, 1010, 1100}, {4000, 4050, 4100});
    const MeasuredCosts loaded = least_disturbed({1200, 1000, 5000, 1010, 1100}, {4500, 4000, 4100, 40000, 4050});
    NONHOLO_CHECK_EQ(quiet.rhs_ns, 1000.0);
    NONHOLO_CHECK_EQ(loaded.jacobian_ns, 4000.0);
    NONHOLO_CHECK_EQ(loaded.jacobian_cost(), quiet.jacobian_cost());
    NONHOLO_CHECK_EQ(loaded.jacobian_cost(), 4.0);
    // times that are not positive (a clock that did not advance) or NaN are no measurement
    NONHOLO_CHECK_EQ(least_disturbed({0.0, NAN, 800.0}, {-1.0, 2400.0}).jacobian_cost(), 3.0);
    bool threw = false;
    try {
      least_disturbed({0.0}, {100.0});
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    NONHOLO_CHECK(threw);
  }
  const auto system = nonholo::testing::sleigh();
  const std::vector<double> p = [] {
    auto q = nonholo::testing::sleigh_params();
    q.push_back(1e-4);  // eps
    return q;
  }();
  const std::vector<double> y = {0.0, 0.0, 0.3, -1.5, 0.2, 1.0};
  {  // measure_costs: one call of each sizes the batches (500 ns: 8 calls; 2000 ns: 2), then
     // kBatches of each in turns, every call made; the third right-hand side batch and the first
     // Jacobian batch were disturbed
    const CountingModel model(system);
    std::vector<double> times = {500.0, 2000.0};
    const double rhs_batches[kBatches] = {8 * 450.0, 8 * 420.0, 8 * 2000.0, 8 * 430.0, 8 * 425.0};
    const double jacobian_batches[kBatches] = {2 * 9000.0, 2 * 1900.0, 2 * 1890.0, 2 * 1950.0, 2 * 1900.0};
    for (int b = 0; b < kBatches; ++b) {
      times.push_back(rhs_batches[b]);
      times.push_back(jacobian_batches[b]);
    }
    ScriptedStopwatch watch(times);
    const MeasuredCosts costs = measure_costs(model, 0.0, y.data(), p.data(), watch);
    NONHOLO_CHECK_EQ(watch.used(), times.size());
    NONHOLO_CHECK_EQ(model.rhs_calls, 1L + 8L * kBatches);
    NONHOLO_CHECK_EQ(model.jacobian_calls, 1L + 2L * kBatches);
    NONHOLO_CHECK_EQ(costs.rhs_ns, 420.0);
    NONHOLO_CHECK_EQ(costs.jacobian_ns, 1890.0);
    NONHOLO_CHECK(std::abs(costs.jacobian_cost() - 4.5) < 1e-15);

    // the policy from the measured cost: the chain N = 16's fixed costs (a step 0.388, a setup
    // 0.662 right-hand sides): its estimate 3.46 keeps a Jacobian 20 steps (ceil(8 * 3.46 / 1.388)),
    // the measured 4.5 also 20 (ceil(6 * 4.5 / 1.388)), with the scale of a measured cost (at the
    // estimates' scale: 26); both start in the reuse mode
    const JacobianPolicy estimated(3.46, 0.388, 0.662),
        measured(costs.jacobian_cost(), 0.388, 0.662, JacobianPolicy::kMeasuredReuseWork);
    NONHOLO_CHECK_EQ(estimated.reuse_steps(), 20L);
    NONHOLO_CHECK_EQ(measured.reuse_steps(), 20L);
    NONHOLO_CHECK_EQ(JacobianPolicy(costs.jacobian_cost(), 0.388, 0.662).reuse_steps(), 26L);
    NONHOLO_CHECK(!measured.refreshing());
    // the sleigh's fixed costs (a step 11.8, a setup 4.01 right-hand sides): refreshed every step
    // from the start at its estimate (3.14) and at a measured 3.0, kept from a measured 3.7 on
    // (a Jacobian and a setup above 0.6 (1 + o) = 7.68)
    NONHOLO_CHECK(JacobianPolicy(3.14, 11.8, 4.01).refreshing());
    NONHOLO_CHECK(JacobianPolicy(3.0, 11.8, 4.01).refreshing());
    NONHOLO_CHECK(!JacobianPolicy(3.7, 11.8, 4.01).refreshing());
  }
  {  // a model measures once and keeps it; an evaluation that throws keeps nothing
    const CountingModel model(system);
    NONHOLO_CHECK(std::isnan(model.measured_jacobian_cost()));
    const double first = model.measured_jacobian_cost(0.0, y.data(), p.data());
    NONHOLO_CHECK(first > 0.0 && std::isfinite(first));
    const long calls = model.rhs_calls;
    NONHOLO_CHECK_EQ(model.measured_jacobian_cost(0.0, y.data(), p.data()), first);
    NONHOLO_CHECK_EQ(model.rhs_calls, calls);  // not measured again
    const ThrowingModel failing(system);
    NONHOLO_CHECK(std::isnan(failing.measured_jacobian_cost(0.0, y.data(), p.data())));
    NONHOLO_CHECK(std::isnan(failing.measured_jacobian_cost()));
  }
  {  // a test's winner by less than kSwitchMargin keeps the current mode; by more, switches. A
     // Jacobian of 10 right-hand sides; reuse: 15 right-hand sides of work per step of 0.03
     // (14.5 + 10 / 20), refresh: 20 per step (10 + 10)
    const double reuse_rate = 0.03 / 15.0;
    const Dynamics close{0.03, 14.5, 1.03 * reuse_rate * 20.0, 10.0};  // refresh 3% further per work
    const Dynamics clear{0.03, 14.5, 1.10 * reuse_rate * 20.0, 10.0};  // 10% further
    JacobianPolicy a(10.0), b(10.0);
    NONHOLO_CHECK(!a.refreshing());
    NONHOLO_CHECK(!refreshing_after(a, close, 400));
    NONHOLO_CHECK(a.tests() >= 1);
    NONHOLO_CHECK(refreshing_after(b, clear, 400));
  }
  return nonholo::testing::failures;
}
