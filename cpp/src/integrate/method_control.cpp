// Method control of a CVODE run: the Jacobian policy of BDF runs (jacobian_policy.hpp), "auto"'s
// stiffness test on Adams runs and its switch to BDF, and restarts (after a drift the run driver
// could not project in place, with the first step taken from the replaced run). The constants:
// method_control.hpp.
#include <algorithm>
#include <cmath>
#include <exception>

#include "integration.hpp"
#include "nonholo/format.hpp"

namespace nonholo::cvode {

void Integration::apply_jacobian_policy(double t) {
  JacobianPolicy::Counters now;
  now.t = t;
  now.t_start = t0_;
  now.t_end = tf_;
  CVodeGetNumSteps(mem(), &now.steps);
  CVodeGetLastStep(mem(), &now.h);
  CVodeGetNumRhsEvals(mem(), &now.rhs);
  CVodeGetNumJacEvals(mem(), &now.jacobians);
  CVodeGetNumNonlinSolvConvFails(mem(), &now.failures);
  CVodeGetNumLinSolvSetups(mem(), &now.setups);
  if (policy_->after_step(now)) set_jacobian_mode(policy_->refreshing());
  // A new Jacobian once the step has grown opt_.jacobian_step_growth past the largest step taken
  // when the kept one was taken (off by default). A Jacobian taken where the solution was much
  // stiffer than it is later makes the iteration matrix I - gamma J too stiff, its Newton
  // corrections too small, and CVODE's convergence test passes them: a Coulomb slide started from a
  // slip of 4e-7 (stiffness ~ 1 / |s|) kept its first Jacobian over 45 steps while |s| grew to 1e-2
  // and the step from 1e-7 to 1e-2, and a cart's wheel spins ended 2.6e-3 off (2.7e-5 with a
  // Jacobian every 20 steps, as with adams, dop853, or BDF from the start). Step growth is where
  // such a stiffness fell (its step-size limit did). Not by default: in the start-up of an ordinary
  // stiff run (the friction chain N = 16) a tenfold growth asked for a Jacobian the run did not
  // need, and its step sequence cost 11% more work.
  if (!(opt_.jacobian_step_growth > 1.0)) return;
  largest_step_ = std::max(largest_step_, std::abs(now.h));
  if (now.jacobians != jacobians_seen_) {
    jacobians_seen_ = now.jacobians;
    jacobian_step_ = largest_step_;
    if (growth_refresh_) {  // taken: back to the policy's frequencies
      growth_refresh_ = false;
      set_jacobian_mode(policy_->refreshing());
    }
  } else if (growth_refresh_) {
    check(CVodeSetJacEvalFrequency(mem(), 1), "CVodeSetJacEvalFrequency");  // the policy may have reset it
  } else if (std::abs(now.h) > opt_.jacobian_step_growth * jacobian_step_) {
    growth_refresh_ = true;
    check(CVodeSetJacEvalFrequency(mem(), 1), "CVodeSetJacEvalFrequency");
  }
}

void Integration::set_jacobian_mode(bool every) {
  const auto f = policy_->frequencies(every, model_.stiff());
  check(CVodeSetJacEvalFrequency(mem(), f.jacobian), "CVodeSetJacEvalFrequency");
  check(CVodeSetLSetupFrequency(mem(), f.setup), "CVodeSetLSetupFrequency");
}

// Hairer's test for Adams (kStiffCheckSteps): h |lambda| along CVODE's estimated local error e,
// h |f(t, y + e) - f(t, y)| / |e| in the error weights. At the border of the stability region
// the error is dominated by the components the border holds, so this is h |lambda| of the stiff
// mode (a damping lambda = 100 t^2: the estimate equals it to 3 digits). Below the border, the
// test of steps held by a decaying mode (kDecayChecks): the quotient's real part (rho, in the
// weights' inner product) is most of it, and the solution's own rate h |f(t, y)| / |y| is
// kRateRatio times below it.
Integration::AdamsCheck Integration::adams_check(double t) {
  void* cv = mem();
  int order = 0;
  sun::real h = 0.0;
  CVodeGetLastOrder(cv, &order);
  CVodeGetLastStep(cv, &h);
  if (order < 1 || order > 12) return AdamsCheck::Neither;
  if (!stiff_scratch_[0]) {
    for (auto& v : stiff_scratch_) v.reset(N_VClone(y_.get()));
  }
  N_Vector e = stiff_scratch_[0].get(), w = stiff_scratch_[1].get(), f0 = stiff_scratch_[2].get(),
           f1 = stiff_scratch_[3].get();
  if (CVodeGetEstLocalErrors(cv, e) != CV_SUCCESS || CVodeGetErrWeights(cv, w) != CV_SUCCESS) return AdamsCheck::Neither;
  const double size = N_VWrmsNorm(e, w);
  if (!(size > 0.0) || !std::isfinite(size)) return AdamsCheck::Neither;
  N_VLinearSum(1.0, y_.get(), 1.0, e, f1);  // y + e, then f there
  const double* p = problem_.params.data();
  try {  // y + e may leave the model's domain: then no verdict
    model_.rhs(t, N_VGetArrayPointer(y_.get()), p, N_VGetArrayPointer(f0), *problem_.ws);
    std::copy(N_VGetArrayPointer(f1), N_VGetArrayPointer(f1) + n_, corr_stiff_.begin());
    model_.rhs(t, corr_stiff_.data(), p, N_VGetArrayPointer(f1), *problem_.ws);
  } catch (const std::exception&) {
    return AdamsCheck::Neither;
  }
  const double rate_h = std::abs(h) * N_VWrmsNorm(f0, w) / N_VWrmsNorm(y_.get(), w);
  N_VLinearSum(1.0, f1, -1.0, f0, f1);  // J e
  const double lambda_h = std::abs(h) * N_VWrmsNorm(f1, w) / size;
  if (!std::isfinite(lambda_h)) return AdamsCheck::Neither;
  if (lambda_h > kAdamsStiffFraction * kAdamsStabilityBorder[order]) return AdamsCheck::AtBorder;
  const double* ev = N_VGetArrayPointer(e);
  const double *jv = N_VGetArrayPointer(f1), *wv = N_VGetArrayPointer(w);
  double dot = 0.0, squares = 0.0;
  for (int i = 0; i < n_; ++i) {
    dot += wv[i] * wv[i] * ev[i] * jv[i];
    squares += wv[i] * wv[i] * ev[i] * ev[i];
  }
  const double rho_h = -std::abs(h) * dot / squares;
  const bool held = lambda_h > kDecayFloor && rho_h >= kDecayRealShare * lambda_h && kRateRatio * rate_h < lambda_h;
  return held ? AdamsCheck::HeldByDecay : AdamsCheck::Neither;
}

bool Integration::adams_is_stiff(double t) {
  long failures = 0, steps = 0;
  CVodeGetNumNonlinSolvConvFails(mem(), &failures);
  CVodeGetNumSteps(mem(), &steps);
  if (steps % kStiffCheckSteps == 0) {
    corr_stiff_.resize(n_);
    const AdamsCheck check = adams_check(t);
    held_checks_ = check == AdamsCheck::AtBorder ? held_checks_ + 1 : 0;
    decay_checks_ = check == AdamsCheck::Neither ? 0 : decay_checks_ + 1;
    if (held_checks_ >= kStiffChecks || decay_checks_ >= kDecayChecks) return true;
  }
  if (failures == last_failures_) return false;
  last_failures_ = failures;
  // a failure from a non-finite right-hand side is the model's domain ending, not stiffness
  if (problem_.n_nonfinite != last_nonfinite_) {
    last_nonfinite_ = problem_.n_nonfinite;
    return false;
  }
  failure_steps_.push_back(steps);
  while (!failure_steps_.empty() && failure_steps_.front() <= steps - kStiffWindow) failure_steps_.erase(failure_steps_.begin());
  return static_cast<long>(failure_steps_.size()) >= kStiffFailures;
}

// CVODE starts Adams at order 1 with the step of its estimate (cvHin: the local error h^2/2
// |y''|_wrms of order 1 at one, with the bias 1/2, from up to four extra right-hand sides at
// finite-difference points). A restart after a drift has that second derivative already: the
// replaced run's Nordsieck history at t (CVodeGetDky, order >= 2; the projection moved y by
// 0.1 rtol of its scale at most, which leaves y'' as it is to that accuracy), weighted with its
// error weights: h0 = 1/2 sqrt(2 / |y''|_wrms), and never above its last step (at a higher
// order). CVODE's error test still accepts or rejects that step.
double Integration::restart_step(double t) {
  void* mem = solver_->mem.get();
  int order = 0;
  sun::real h_last = 0.0;
  CVodeGetLastOrder(mem, &order);
  CVodeGetLastStep(mem, &h_last);
  if (method_ != Method::Adams || order < 2 || !(std::abs(h_last) > 0.0)) return 0.0;
  if (!restart_ydd_) {
    restart_ydd_.reset(N_VNew_Serial(n_, ctx_));
    restart_weights_.reset(N_VNew_Serial(n_, ctx_));
  }
  if (CVodeGetDky(mem, t, 2, restart_ydd_.get()) != CV_SUCCESS) return 0.0;
  if (CVodeGetErrWeights(mem, restart_weights_.get()) != CV_SUCCESS) return 0.0;
  const double norm = N_VWrmsNorm(restart_ydd_.get(), restart_weights_.get());
  if (!(norm > 0.0) || !std::isfinite(norm)) return 0.0;
  return std::min(0.5 * std::sqrt(2.0 / norm), std::abs(h_last));
}

void Integration::restart(double t, Method method, const std::string& why) {
  collect_stats();
  ++out_.n_restarts;
  const double h0 = method == Method::Adams ? restart_step(t) : 0.0;
  // forward sensitivities go on from where Adams left them (t is its last step's end)
  if (sens_ && method == Method::Bdf) switch_sensitivities_ = sens_->current(t);
  start(t, method, nullptr);
  if (h0 > 0.0) check(CVodeSetInitStep(solver_->mem.get(), dir_ * h0), "CVodeSetInitStep");
  if (method == Method::Bdf) {
    may_switch_ = false;
    out_.t_switch = t;
    out_.method = "adams->bdf at t=" + format_number(t) + " (" + why + ")";
  }
}

}  // namespace nonholo::cvode
