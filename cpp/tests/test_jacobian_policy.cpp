// The Jacobian policy (jacobian_policy.hpp) on a synthetic integrator whose step size and Newton
// work depend on the mode: it settles on the mode that advances further per unit of work, tests
// the other one rarely (doubling holds), follows a change of the dynamics, runs no test when the
// rest of the run is short, tests early at a Newton failure of the start-up, refreshes in the
// start-up where a refresh is cheap, weighs linear setups, gives CVODE the frequencies of each
// mode, and depends only on the counters it is given.
#include "check.hpp"
#include "nonholo/jacobian_policy.hpp"

using nonholo::JacobianPolicy;

namespace {

// Per step, reuse advances dt_reuse with rhs_reuse right-hand sides and a Jacobian every 20
// steps; refresh advances dt_refresh with rhs_refresh and one Jacobian.
struct Dynamics {
  double dt_reuse, rhs_reuse, dt_refresh, rhs_refresh;
};

struct Run {
  long steps_refreshing = 0, changes = 0;
  JacobianPolicy::Counters counters;
  double rhs = 0.0;
};

void advance(JacobianPolicy& policy, Run& run, const Dynamics& d, long steps, double t_end = 1e9) {
  for (long i = 0; i < steps; ++i) {
    const bool every = policy.refreshing();
    run.counters.h = every ? d.dt_refresh : d.dt_reuse;
    run.counters.t += run.counters.h;
    run.counters.t_end = t_end;
    ++run.counters.steps;
    run.rhs += every ? d.rhs_refresh : d.rhs_reuse;
    run.counters.rhs = static_cast<long>(run.rhs);
    if (every || i % 20 == 0) {
      ++run.counters.jacobians;
      ++run.counters.setups;
    }
    if (policy.after_step(run.counters)) ++run.changes;
    if (policy.refreshing()) ++run.steps_refreshing;
  }
}

}  // namespace

int main() {
  // the sleigh's case: reuse takes 4x smaller steps for more Newton work; a Jacobian costs 3
  const Dynamics turning{0.01, 1.8, 0.04, 1.4};
  // the chain's case: reuse takes steps 0.7x as long, a Jacobian costs 5 right-hand sides
  const Dynamics slow{0.028, 1.4, 0.04, 1.6};
  {
    JacobianPolicy policy(3.0);
    Run run;
    advance(policy, run, turning, 3000);
    NONHOLO_CHECK(policy.refreshing());
    NONHOLO_CHECK(run.steps_refreshing >= 2600);  // reuse: the start-up and ~44 steps per test
    NONHOLO_CHECK(policy.hold() >= 1024);         // 64, 128, ...: few tests once settled
    NONHOLO_CHECK(policy.tests() <= 7);
  }
  {
    JacobianPolicy policy(5.0);
    Run run;
    advance(policy, run, slow, 3000);
    NONHOLO_CHECK(!policy.refreshing());
    NONHOLO_CHECK(run.steps_refreshing <= 7 * 32);  // only the tests' other-mode parts refresh
  }
  {  // the same dynamics with a Jacobian that costs a tenth of a right-hand side: refresh wins
    JacobianPolicy policy(0.1);
    Run run;
    advance(policy, run, slow, 2000);
    NONHOLO_CHECK(policy.refreshing());
  }
  {  // ... unless each refresh pays a linear setup of 10 right-hand sides (a tiny model's LU)
    JacobianPolicy policy(0.1, 0.0, 10.0);
    Run run;
    advance(policy, run, slow, 2000);
    NONHOLO_CHECK(!policy.refreshing());
  }
  {  // the start-up refreshes every step where a Jacobian and a setup cost at most 0.6 (1 + o)
    // right-hand sides: the sleigh's costs (6 states: 0.56) against the friction chain's (N = 2: 0.67)
    NONHOLO_CHECK(JacobianPolicy(3.14, 11.8, 4.01).refreshing());
    NONHOLO_CHECK(!JacobianPolicy(2.82, 8.93, 3.85).refreshing());
    NONHOLO_CHECK(!JacobianPolicy(3.0).refreshing());
    JacobianPolicy policy(3.14, 11.8, 4.01);
    Run run;
    advance(policy, run, turning, JacobianPolicy::kWarmUp - 1);
    NONHOLO_CHECK_EQ(run.steps_refreshing, JacobianPolicy::kWarmUp - 1);
    NONHOLO_CHECK_EQ(policy.tests(), 0L);
  }
  {  // a Newton failure in the start-up calls the first test before kWarmUp steps
    JacobianPolicy quiet(3.0), failing(3.0);
    Run rq, rf;
    advance(quiet, rq, turning, 20);
    advance(failing, rf, turning, 20);
    rf.counters.failures += 1;
    advance(quiet, rq, turning, JacobianPolicy::kWarmUp - 21);
    advance(failing, rf, turning, JacobianPolicy::kWarmUp - 21);
    NONHOLO_CHECK(!quiet.refreshing());
    NONHOLO_CHECK_EQ(quiet.tests(), 0L);
    NONHOLO_CHECK(failing.refreshing());
    NONHOLO_CHECK_EQ(failing.tests(), 1L);
  }
  {  // the dynamics change from slow to turning: the policy follows
    JacobianPolicy policy(3.0);
    Run run;
    advance(policy, run, slow, 600);
    NONHOLO_CHECK(!policy.refreshing());
    const long before = run.steps_refreshing;
    advance(policy, run, turning, 3000);
    NONHOLO_CHECK(policy.refreshing());
    NONHOLO_CHECK(run.steps_refreshing - before >= 2000);
  }
  {  // a short run (the end within 10 tests' length) keeps CVODE's reuse: no test
    JacobianPolicy policy(3.0);
    Run run;
    advance(policy, run, turning, 300, 300 * 0.01);
    NONHOLO_CHECK_EQ(policy.tests(), 0L);
    NONHOLO_CHECK_EQ(run.steps_refreshing, 0L);
  }
  {  // a burst of Newton failures with a kept Jacobian: refresh at once, even in a short run
    JacobianPolicy policy(3.0);
    Run run;
    advance(policy, run, turning, 10, 0.3);
    NONHOLO_CHECK(!policy.refreshing());
    run.counters.failures += 2;
    advance(policy, run, turning, 1, 0.3);
    NONHOLO_CHECK(policy.refreshing());
    NONHOLO_CHECK_EQ(policy.tests(), 0L);
    // a Jacobian that costs 3 right-hand sides (more than 2 (1 + o)) would be refreshed at each setup
    // in the refresh mode its test weighs; after a burst it is refreshed every step (a contact
    // coming to rest under Coulomb friction)
    NONHOLO_CHECK(!policy.refresh_at_setups());
    NONHOLO_CHECK_EQ(policy.frequencies(true, true).jacobian, 1L);
    NONHOLO_CHECK_EQ(policy.frequencies(true, true).setup, 1L);
  }
  {  // before any burst, the same policy's refresh mode takes a Jacobian at each setup
    const JacobianPolicy policy(3.0);
    NONHOLO_CHECK_EQ(policy.frequencies(true, true).setup, JacobianPolicy::kStiffSetupFrequency);
  }
  {  // CVODE's frequencies per mode: refreshing, every step where a Jacobian is cheap and at each
    // linear setup (every kStiffSetupFrequency steps) where it is not; in reuse, a non-stiff model keeps
    // CVODE's (51, 20); a stiff one refreshes at each setup where a Jacobian is cheap (the sleigh's
    // estimates: 3.14 right-hand sides, a step's fixed work 11.8, a setup 4.01) and every
    // reuse_steps() = ceil(8 c / (1 + o)) steps where it is not (the friction chain N = 16:
    // 3.46, 0.388, 0.662: 20 steps)
    const JacobianPolicy cheap(3.14, 11.8, 4.01), costly(3.46, 0.388, 0.662);
    NONHOLO_CHECK_EQ(cheap.frequencies(true, true).setup, 1L);
    NONHOLO_CHECK_EQ(costly.frequencies(true, true).setup, JacobianPolicy::kStiffSetupFrequency);
    for (const JacobianPolicy* p : {&cheap, &costly}) {
      NONHOLO_CHECK_EQ(p->frequencies(true, true).jacobian, 1L);
      NONHOLO_CHECK_EQ(p->frequencies(false, false).jacobian, JacobianPolicy::kCvodeJacobianFrequency);
      NONHOLO_CHECK_EQ(p->frequencies(false, false).setup, JacobianPolicy::kCvodeSetupFrequency);
    }
    NONHOLO_CHECK_EQ(cheap.frequencies(false, true).jacobian, 1L);
    NONHOLO_CHECK_EQ(cheap.frequencies(false, true).setup, JacobianPolicy::kStiffSetupFrequency);
    NONHOLO_CHECK_EQ(costly.frequencies(false, true).jacobian, 20L);
    NONHOLO_CHECK_EQ(costly.frequencies(false, true).setup, JacobianPolicy::kCvodeSetupFrequency);
    // the chain N = 16 starts in the reuse mode, the sleigh refreshing
    NONHOLO_CHECK(!costly.refreshing());
    NONHOLO_CHECK(cheap.refreshing());
  }
  {  // the reuse grows with the Jacobian's cost against a step's work, from just above the
    // refresh at setups to CVODE's 51: the chain N = 32 and 64's estimates (4.35, 0.0817; 5.58,
    // 0.0154: 33 and 44 steps), a Jacobian just too costly for each setup (2.1, 0: 17 steps), one
    // of a thousand right-hand sides (51)
    NONHOLO_CHECK_EQ(JacobianPolicy(4.35, 0.0817).reuse_steps(), 33L);
    NONHOLO_CHECK_EQ(JacobianPolicy(5.58, 0.0154).reuse_steps(), 44L);
    NONHOLO_CHECK(JacobianPolicy(2.0, 0.0).refresh_at_setups());
    const JacobianPolicy just(2.1, 0.0);
    NONHOLO_CHECK(!just.refresh_at_setups());
    NONHOLO_CHECK_EQ(just.reuse_steps(), 17L);
    NONHOLO_CHECK_EQ(JacobianPolicy(1000.0, 0.01).reuse_steps(), JacobianPolicy::kCvodeJacobianFrequency);
    // never shorter than the spacing of the setups at which cheaper Jacobians are taken
    for (double c : {0.0, 0.5, 2.0, 3.0, 3.5, 5.0, 20.0, 1e6}) {
      const long steps = JacobianPolicy(c, 0.2).reuse_steps();
      NONHOLO_CHECK(steps >= JacobianPolicy::kStiffSetupFrequency);
      NONHOLO_CHECK(steps <= JacobianPolicy::kCvodeJacobianFrequency);
    }
  }
  {  // deterministic: the same counters give the same decisions
    JacobianPolicy a(3.0), b(3.0);
    Run ra, rb;
    advance(a, ra, turning, 500);
    advance(b, rb, turning, 500);
    NONHOLO_CHECK_EQ(ra.changes, rb.changes);
    NONHOLO_CHECK_EQ(ra.steps_refreshing, rb.steps_refreshing);
  }
  return nonholo::testing::failures;
}
