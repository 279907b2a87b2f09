// The measured cost of a model's Jacobian, in right-hand sides: what the Jacobian policy of BDF
// runs (jacobian_policy.hpp) weighs by default, instead of the cost model's estimate
// (CostEstimate::jacobian_cost, 15-45% below the measured ratio on systems it was not fitted to).
//
// A model is timed once, on its first BDF run with the policy (Model::measured_costs caches the
// result on the model: its later runs, in any thread, weigh the same numbers and so choose the
// same steps): kBatches batches of right-hand sides and of Jacobians, in turns, each batch about
// kBatchNanoseconds long (at least one call). Another process's load only adds time to a batch,
// so each cost is the minimum over its batches (the least disturbed), and both are measured in
// turns so that a slow phase of the machine falls on both. The clock is an interface (Stopwatch)
// so that tests inject the times.
#pragma once

#include <functional>
#include <vector>

namespace nonholo {

class Model;

// Nanoseconds per call of a model's right-hand side and of its Jacobian (the sparse one where the
// model has it: the Jacobian a BDF run evaluates).
struct MeasuredCosts {
  double rhs_ns = 0.0, jacobian_ns = 0.0;
  // One Jacobian in right-hand sides.
  double jacobian_cost() const { return jacobian_ns / rhs_ns; }
};

// The time a batch of calls takes, in nanoseconds: the steady clock (SteadyStopwatch), or given
// numbers in tests.
class Stopwatch {
 public:
  virtual ~Stopwatch() = default;
  virtual double nanoseconds(const std::function<void()>& batch) = 0;
};

class SteadyStopwatch : public Stopwatch {
 public:
  double nanoseconds(const std::function<void()>& batch) override;
};

constexpr int kBatches = 5;
constexpr double kBatchNanoseconds = 4000.0;
constexpr long kMaxBatchCalls = 1000;

// Calls per batch for a call that took `one` nanoseconds: about kBatchNanoseconds, at least 1.
long batch_calls(double one);

// The costs from per-call times of batches timed in turns: the minimum of each (NaN-free, positive
// times only; throws std::invalid_argument when a list has none).
MeasuredCosts least_disturbed(const std::vector<double>& rhs_ns, const std::vector<double>& jacobian_ns);

// Times `model`'s right-hand side and Jacobian at (t, y; p) with `watch` (the header comment).
// Exceptions of the model's evaluations propagate.
MeasuredCosts measure_costs(const Model& model, double t, const double* y, const double* p, Stopwatch& watch);

}  // namespace nonholo
