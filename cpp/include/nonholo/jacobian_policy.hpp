// When to refresh the Jacobian of a BDF run: chosen from the cost of a Jacobian relative to a
// right-hand side and from how the Newton iteration and the step sizes fare with each choice.
//
// CVODE's modified Newton reuses a Jacobian for up to 51 steps (and its iteration matrix for
// 20), refreshing it earlier when the iteration fails to converge (the reuse mode of a stiff model
// shortens the 51 by the Jacobian's cost: reuse_steps()). That is right where the
// Jacobian changes slowly along the solution (the knife-edge chain: 2-3x faster than a refresh
// every step, at the same error) and wrong where it turns fast (the friction sleigh, whose stiff
// subspace D_perp(q) turns with q: with reuse the Newton iteration fails on 7-50% of the steps,
// the steps shrink 2-4x and the error grows 7x). Neither the size of the change of the Jacobian
// nor the failure rate separates the two cases reliably (the convergence of the simplified
// Newton iteration depends on the error's components), so the run measures the outcome: it
// runs both modes and compares, in units of work that do not depend on the machine,
//
//     rate = (time advanced) / (right-hand sides + c Jacobians + s linear setups + o steps)
//
// with c = Jacobian / right-hand side, by default measured on the model's first run and kept on
// the model (Model::measured_jacobian_cost, measured_costs.hpp: the cost model's estimates,
// CostEstimate::jacobian_cost, were 15-45% below the measured ratio on systems they were not
// fitted to; solver_options={"jacobian_costs": "estimated"} takes the estimate), s the cost of a linear setup (CVODE's copy and scaling of the matrix and its dense LU) and o
// the fixed cost of a step (CVODE's vector operations and the integration loop), both in
// right-hand sides: they matter for small models, where a refresh every step pays a setup
// every step. A test runs the current mode A, the other mode B, then A again (A's two parts
// together cancel a steady trend of the step sizes), each part after a few settling steps (the
// step size needs some steps to follow a change of mode); the winner runs for `hold` steps,
// which doubles while the same mode keeps winning. The first test comes after kWarmUp steps of
// the start-up, or earlier at the first Newton failure with a kept Jacobian. The start-up keeps
// the Jacobian, or refreshes it every step where a refresh costs little next to a step's fixed
// work (a Jacobian and a linear setup at most kCheapRefresh (1 + o) right-hand sides): CVODE's
// convergence test accepts one Newton iteration with a kept Jacobian at the contraction rate
// measured with a fresh one, so a kept Jacobian whose stiff subspace has turned leaves an error
// the test does not see. Measured on the friction sleigh, eps 1e-4: a start-up with a new
// Jacobian at each setup (every 10 steps) has 17x the error of a refresh every step at t = 0.3
// (no Newton failure before step 128 calls the test early; every 2 steps: still 10x at t = 0.5),
// amplified to 2.1e-5 at t = 20 against 1.9e-6; a refresh there costs 0.56 (1 + o) (its implicit
// Jacobian estimated at 3.14 right-hand sides, measured 2.8-3.0) and the run takes as long
// refreshed as kept. The friction chain N = 2..8, 0.67-1.5 (1 + o), is 1.5-2x
// slower refreshed and keeps the Jacobian. A burst of Newton
// failures with a kept Jacobian (kBurstFailures within kBurst steps) switches to refreshing at
// once, for at least kBurstHold steps, and ends a test of reuse as lost. A test costs about 40
// steps in the losing mode, so it runs only when the rest of the integration (in steps,
// estimated from the last step size and from the average so far) is at least kPayback times
// longer; short runs keep the start-up mode unless a burst. Only CVODE's counters and the costs
// given at construction enter, and the other mode wins a test only by a margin (kSwitchMargin):
// every run of a model makes the same choices, and so gives the same solution, as long as its
// costs are the same (integrate_many gives what integrate gives: the model keeps its measured
// cost); with the estimated costs on every machine and in every process.
#pragma once

#include <algorithm>
#include <cmath>

namespace nonholo {

class JacobianPolicy {
 public:
  static constexpr long kWarmUp = 128;     // steps in the reuse mode before the first test (start-up ramp)
  static constexpr long kEarlyTest = 16;   // ... or after this many, at the first Newton failure
  static constexpr long kBurst = 8;        // reuse is left at once after kBurstFailures failures
  static constexpr long kBurstFailures = 2;  // of the Newton iteration within kBurst steps
  static constexpr long kSettle = 8;       // steps after a change of mode before measuring
  static constexpr long kMeasureA = 12;    // measured steps of the current mode, before and after
  static constexpr long kMeasureB = 24;    // measured steps of the other mode
  static constexpr long kFirstHold = 64;   // steps the winner runs before the next test
  static constexpr long kBurstHold = 256;  // steps of refreshing after a burst of failures
  static constexpr long kMaxHold = 8192;
  static constexpr double kPayback = 10.0;  // remaining steps per step of a test, to run one
  // The other mode wins a test only by advancing more than this factor further per unit of work:
  // the Jacobian's measured cost is known to a few percent (measured_costs.hpp), the step sizes of
  // a test's parts vary about as much, and a win by less would save less than that.
  static constexpr double kSwitchMargin = 1.05;
  // For stiff models, reuse takes a new Jacobian at each linear setup (every kStiffSetupFrequency
  // steps and at changes of the step size) while a Jacobian costs at most kRefreshAtSetups (1 + o)
  // right-hand sides; otherwise a Jacobian every reuse_steps() steps. Measured on the
  // knife-edge chain with friction, eps 1e-4 (N = 2, 4, 8: 15-40% fewer steps and 3-10x fewer
  // error-test failures than CVODE's reuse, 25-35% faster; estimated Jacobian / (1 + o) = 0.28,
  // 0.47, 1.11, measured 0.3-1.6); at N = 16 (estimated 2.50, measured 2.9-3.3) a Jacobian at each
  // setup costs 16% more work than the reuse below (437 against 377 right-hand sides). The
  // threshold sits between the two, a factor 1.25 or more from each (at 2.5 it was 0.2% from
  // the chain N = 16's estimate). The non-stiff nonholonomic chain takes the same steps in every
  // mode: there, CVODE's reuse (51 steps) is fastest.
  static constexpr double kRefreshAtSetups = 2.0;
  // The start-up refreshes every step while a Jacobian and a linear setup cost at most
  // kCheapRefresh (1 + o) right-hand sides (header comment).
  static constexpr double kCheapRefresh = 0.6;
  static constexpr long kStiffSetupFrequency = 10;
  // For stiff models whose Jacobian costs more than that, reuse takes a new Jacobian at the
  // first linear setup at least reuse_steps() steps after the last one (CVODE's msbj):
  //
  //     reuse_steps = ceil(kReuseWork c / (1 + o)),  at least kStiffSetupFrequency, at most 51,
  //
  // (kMeasuredReuseWork for a measured c, below) the shortest reuse over which a Jacobian costs at
  // most 1 / kReuseWork of the steps it serves
  // (each a right-hand side and a step's fixed work). Shorter keeps the Newton direction fresher
  // (a Jacobian kept for 50 steps of a stiff run costs steps and right-hand sides: the error test
  // and the step-size choice pay for it), longer saves Jacobians; the costs set where the balance
  // lies. Measured counters (deterministic) on the friction chain, eps 1e-4, t 2, rtol 1e-8, work
  // = right-hand sides + c Jacobians + o steps + s setups with the measured c (N = 16: 3.9, N = 32:
  // 4.1) and the estimated o, s, for msbj = 5, 10, 15, 20, 21, 25, 26, 30, 40, 45, 51: N = 16 425,
  // 409, 381, 377, 377, 422, 440, 425, 531, 360, 428; N = 32 205, 198, 196, 196, 196, 197, 188, 192,
  // 192, 192, 203. The counters are not smooth in msbj, so only kReuseWork's scale is fitted: 8
  // gives 20 at N = 16 (377: the best of the fixed 5, 20, 50) and 33 at N = 32 (192 at 30 and 40);
  // 4 gives 10 and 17 (409 at N = 16; at N = 32, 196 at 15 and 20).
  static constexpr double kReuseWork = 8.0;
  // The same scale for a measured c (measured_costs.hpp), which runs up to 45% above the estimates
  // the scale above was fitted with: 6 keeps the reuse lengths near the fitted ones, 18-20 steps at
  // N = 16 (measured c 4.1-4.5; 8 gave 24-26: 325 of work against 292 at 20, and 313 at 18), 25 at
  // N = 32 (4.4-4.6; the counters within 5% of the best from 20 to 40) and 35 at N = 64 (5.8: a
  // Jacobian more than the estimate's 44). The counters are not smooth in the reuse (the comment
  // above), so no scale gives every measured c its best length.
  static constexpr double kMeasuredReuseWork = 6.0;
  // CVODE's defaults (cvodes_ls.c, cvodes.c): steps between Jacobians and between linear setups.
  static constexpr long kCvodeJacobianFrequency = 51;
  static constexpr long kCvodeSetupFrequency = 20;

  // CVODE's state after a step: cumulative counters, time, last step size, end of the interval.
  struct Counters {
    double t = 0.0, h = 0.0, t_start = 0.0, t_end = 0.0;
    long steps = 0, rhs = 0, jacobians = 0, failures = 0;  // failures: of the Newton iteration
    long setups = 0;                                       // linear-solver setups
  };

  // The costs in right-hand sides: a Jacobian (estimated or measured), a step's fixed work, a
  // linear setup; reuse_work the scale of reuse_steps() (kReuseWork for an estimated Jacobian,
  // kMeasuredReuseWork for a measured one).
  explicit JacobianPolicy(double jacobian_cost, double step_cost = 0.0, double setup_cost = 0.0,
                          double reuse_work = kReuseWork)
      : cost_(std::max(0.0, jacobian_cost)),
        step_cost_(std::max(0.0, step_cost)),
        setup_cost_(std::max(0.0, setup_cost)),
        reuse_work_(reuse_work),
        refresh_(refresh_first()) {}

  double jacobian_cost() const { return cost_; }
  bool refreshing() const { return refresh_; }
  // In the reuse mode: a new Jacobian at each linear setup (cheap Jacobians), else CVODE's reuse.
  bool refresh_at_setups() const { return cost_ <= kRefreshAtSetups * (1.0 + step_cost_); }
  // The start-up refreshes every step (a refresh costs little next to a step's fixed work).
  bool refresh_first() const { return cost_ + setup_cost_ <= kCheapRefresh * (1.0 + step_cost_); }
  // Steps between Jacobians in the reuse mode of a stiff model whose Jacobian is costly (above).
  long reuse_steps() const {
    const double steps = std::ceil(reuse_work_ * cost_ / (1.0 + step_cost_));
    return static_cast<long>(std::clamp(steps, static_cast<double>(kStiffSetupFrequency),
                                        static_cast<double>(kCvodeJacobianFrequency)));
  }
  // CVODE's Jacobian and linear-setup frequencies of a mode (CVodeSetJacEvalFrequency,
  // CVodeSetLSetupFrequency). Refreshing: a Jacobian and a setup every step where a Jacobian is
  // cheap (refresh_at_setups()), else a Jacobian at each linear setup, every kStiffSetupFrequency
  // steps: the mode a costly Jacobian is tested against. A setup per step never won for those (the
  // chain N = 16: 2.5x the time of the best fixed frequency), so the test could only keep the reuse,
  // which costs steps where the stiff subspace turns fast: the spring snake
  // (nonholo.testing.spring_snake), 16 and 32 links, eps 1e-4, ran 1.3x and 1.5x the best fixed
  // frequency that way and 0.95-0.97x now (benchmarks/jacobian_policy.py). After a burst of Newton
  // failures, though, every step until the next test (rescue_): a sliding contact coming to rest
  // under regularized Coulomb friction (the stick-slip ball) is held there by a Jacobian that turns
  // within a step, and a Jacobian at each setup ran into max_steps. In the reuse mode, for stiff models a
  // Jacobian at each setup (every kStiffSetupFrequency steps, refresh_at_setups()) or every
  // reuse_steps() steps, for non-stiff ones (the same steps in every mode) CVODE's own.
  struct Frequencies {
    long jacobian, setup;
  };
  Frequencies frequencies(bool refresh, bool stiff) const {
    if (refresh) return refresh_at_setups() || rescue_ ? Frequencies{1, 1} : Frequencies{1, kStiffSetupFrequency};
    if (!stiff) return {kCvodeJacobianFrequency, kCvodeSetupFrequency};
    if (refresh_at_setups()) return {1, kStiffSetupFrequency};
    return {reuse_steps(), kCvodeSetupFrequency};
  }
  long hold() const { return hold_; }
  long tests() const { return tests_; }

  // After each successful step. Returns true when the mode changed (the caller then sets
  // CVODE's Jacobian and linear-setup frequencies).
  bool after_step(const Counters& now) {
    ++steps_;
    recent_[slot_] = now.failures;
    slot_ = (slot_ + 1) % kBurst;
    // (or with a Jacobian only at each setup: a costly Jacobian's refresh mode)
    const bool kept = !refresh_ || (!rescue_ && !refresh_at_setups());
    if (kept && now.failures - recent_[slot_] >= kBurstFailures) {
      // a burst of convergence failures with a kept Jacobian, in a hold or in a test of reuse:
      // refresh now (reuse lost), test again later
      hold_ = (tests_ > 0 && last_winner_) ? std::min(2 * hold_, kMaxHold) : std::max(hold_, kBurstHold);
      if (phase_ != Phase::Hold) ++tests_;
      refresh_ = true;
      rescue_ = true;
      last_winner_ = true;
      begin(Phase::Hold, now);
      return true;
    }
    switch (phase_) {
      case Phase::Hold: {
        // the start-up with a kept Jacobian: a Newton failure calls the first test early
        const bool early = tests_ == 0 && !refresh_ && now.failures > 0 && now.steps >= kEarlyTest;
        if (steps_ < hold_ && !early) return false;
        // steps left: at the last step size, and at the average rate so far (the smaller: both
        // overestimate while the step size still grows)
        const double left = std::abs(now.t_end - now.t), done = std::abs(now.t - now.t_start);
        const double remaining = std::min(now.h != 0.0 ? left / std::abs(now.h) : 0.0,
                                           done > 0.0 ? left / done * static_cast<double>(now.steps) : 0.0);
        if (remaining < kPayback * kTestSteps) {  // not worth a test now; look again later
          steps_ = hold_ - kFirstHold;
          return false;
        }
        a_ = Work{};
        rescue_ = false;  // the test weighs the reuse against a Jacobian at each setup
        begin(Phase::FirstA, now);
        return false;
      }
      case Phase::FirstA:
        if (steps_ < kMeasureA) return false;
        a_ += measure(now);
        refresh_ = !refresh_;
        begin(Phase::B, now);
        return true;
      case Phase::B:
        if (steps_ == kSettle) start_ = now;
        if (steps_ < kSettle + kMeasureB) return false;
        b_ = measure(now);
        refresh_ = !refresh_;
        begin(Phase::SecondA, now);
        return true;
      case Phase::SecondA: {
        if (steps_ == kSettle) start_ = now;
        if (steps_ < kSettle + kMeasureA) return false;
        a_ += measure(now);
        ++tests_;
        const bool switch_mode = b_.rate() > kSwitchMargin * a_.rate();
        const bool winner = switch_mode ? !refresh_ : refresh_;
        hold_ = (tests_ > 1 && winner == last_winner_) ? std::min(2 * hold_, kMaxHold) : kFirstHold;
        last_winner_ = winner;
        refresh_ = winner;
        begin(Phase::Hold, now);
        return switch_mode;
      }
    }
    return false;
  }

 private:
  static constexpr long kTestSteps = 2 * kMeasureA + kMeasureB + 2 * kSettle;
  enum class Phase { Hold, FirstA, B, SecondA };
  struct Work {
    double advanced = 0.0, cost = 0.0;
    Work& operator+=(const Work& w) {
      advanced += w.advanced;
      cost += w.cost;
      return *this;
    }
    double rate() const { return advanced / std::max(cost, 1.0); }
  };

  void begin(Phase phase, const Counters& now) {
    phase_ = phase;
    steps_ = 0;
    start_ = now;
  }
  Work measure(const Counters& now) const {
    Work w;
    w.advanced = std::abs(now.t - start_.t);
    w.cost = static_cast<double>(now.rhs - start_.rhs) + cost_ * static_cast<double>(now.jacobians - start_.jacobians) +
             step_cost_ * static_cast<double>(now.steps - start_.steps) +
             setup_cost_ * static_cast<double>(now.setups - start_.setups);
    return w;
  }

  double cost_, step_cost_, setup_cost_, reuse_work_;
  bool refresh_;               // the mode; in the start-up refresh_first()
  Phase phase_ = Phase::Hold;  // the first "hold" is the start-up: kWarmUp steps
  long steps_ = kFirstHold - kWarmUp, hold_ = kFirstHold, tests_ = 0;
  bool last_winner_ = false;
  bool rescue_ = false;  // after a burst of failures: a Jacobian and a setup every step until the next test
  Counters start_;
  Work a_, b_;
  long recent_[kBurst] = {};  // cumulative failures after each of the last kBurst steps
  int slot_ = 0;
};

}  // namespace nonholo
