#include "nonholo/explicit_rk.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>

#include "nonholo/dop853_coefficients.hpp"
#include "nonholo/errors.hpp"
#include "nonholo/format.hpp"
#include "nonholo/integrator.hpp"
#include "nonholo/linalg.hpp"
#include "nonholo/step_floor.hpp"

namespace nonholo {

namespace {

using namespace dop853;

constexpr double kSafety = 0.9, kMinFactor = 1.0 / 3.0, kMaxFactor = 6.0;
// Hairer's stiffness test (DOP853's, HNW II, section IV.2): h |lambda| estimated from the last two
// stages, which both sit at t + h (c_12 = 1), as h |f(y_new) - f(y_12)| / |y_new - y_12|. Above
// kStiffBound (near the border of the method's stability region) the step is held by stability,
// not accuracy; kStiffSteps such steps without kNonStiffSteps in a row between them make the run
// stiff. The quotient is |J d| / |d| for the step's d, which a non-normal J inflates (below): a step
// counts only where the power iteration's estimate of |lambda| (the stability cap's) also puts it near
// the border, h |lambda| > kPowerNear kStabilityCap. Without that an outside probe's conservative
// x'' = -x + y/2, y'' = -1e4 y + x/2 (eigenvalues +-i, +-100i, the fast mode excited) switched to BDF at
// rtol 1e-5 to 1e-7 where DOP853's steps held h omega about 0.5: 10x the steps, 9-47x the error, the
// fast oscillation damped to 0.42 of its amplitude. The quotient's real part, rho below, is inflated
// alike (a step's d along position and velocity makes -h d.Jd / |d|^2 up to h omega^2 for an oscillation
// of omega): a step is held by a decaying mode only where the power iteration also puts h |lambda| above
// the bound of that test.
constexpr double kStiffBound = 6.1;
constexpr int kStiffSteps = 15, kNonStiffSteps = 6;
// The stability cap: the next step is proposed no larger than kStabilityCap / |lambda|, lambda the
// Jacobian's largest eigenvalue as a power iteration estimates it (power_step). The error estimate
// does not see a fast mode the solution does not excite, so steps past the border of the stability
// region (|R(h lambda)| > 1 beyond about -6.3) went through, and their interpolant was far off: a
// damped oscillator with eigenvalues -200 and +-2i (x'' = -4x - 100(x' + y'), the same in y) at
// rtol 1e-9 stepped at h lambda 4-9 and once 26, and its values at 21 output points on [0, 1] were
// 3.7e-5 off (up to 37,000 rtol, no warning); with the cap within 14 rtol. Hairer's quotient (below)
// is no estimate for the cap: it sees the fast mode only while the step excites it, and it is
// |J d| / |d| for the step's d, which a non-normal J (an oscillator of 1000 rad/s in (x, x')) makes
// up to 1e6. At kStabilityCap the error estimate still bounds a fast mode's error (|R(z) - e^z|
// 1.9e-2 against an estimate of 5.9e-2 at z = -4.5; at -5.5, 0.19 against 0.024). A capped step is
// held by stability, not accuracy, and counts as at the border: the run goes on with BDF, at BDF's
// accuracy. Counting only steps capped at least twice below what accuracy allowed kept a sleigh on a
// regularized Coulomb edge (v_s = 1e-3) on DOP853 to t = 0.17 and 3,500 rtol off its force at rtol
// 1e-10 (5,600 with the cap at Hairer's 6.1); counted, it switches at t = 0.018 and is within 1 rtol.
// So a mildly stiff run switches too (a damped oscillator with eigenvalues -5 +- 8.7i and +-i:
// 5.7 rtol with BDF where DOP853 had 0.2).
// The cap keeps the largest recent estimate, forgetting it by kLambdaMemory a step. Where the step
// proposed is below kPowerNear of the cap, the estimate is refreshed on every kPowerEvery-th step
// only: the right-hand side it costs was 7-10% of a non-stiff run (the bicycle, the knife-edge
// chain), 2-5% so.
constexpr double kStabilityCap = 4.5, kLambdaMemory = 0.9, kPowerNear = 0.5;
constexpr int kPowerStart = 10, kPowerEvery = 4, kQuotients = 4;
constexpr double kInvariant = 0.05;  // a plane of the Ritz values nearly invariant: residual below this of |lambda|
// Steps held below that border. At tight tolerances DOP853's error estimate holds a stiff run's
// steps well inside the stability region, where Hairer's test never fires: the tippe top on
// viscous contact (an eigenvalue -1.5e5, spinning at 150 rad/s) at rtol 1e-8 steps at h |lambda|
// = 2.0-4.9 (median 2.7), 1.0 at rtol 1e-10, and ran out of max_steps. What tells those steps from
// accurate ones: the eigenvalue is real and negative (rho = -h (dK . dy) / |dy|^2, the quotient's
// real part, is at least kRealShare of the estimate: a fast oscillation has rho ~ 0), and h |lambda|
// is kDecayFactor times above what accuracy allows a decaying mode that is actually excited,
// (rtol 9!)^(1/9) (the local error (h lambda)^9 / 9! of an order-8 step at rtol): the run's
// accurate steps stayed below 0.83 of that (knife-edge chain, rtol 1e-6 to 1e-2), the tippe
// top's held ones above 3.3 (rtol 1e-10 to 1e-6). kDecaySteps such steps without kNonStiffSteps
// in a row between them make the run stiff: far more than Hairer's 15, since they are steps of a
// run that is still stable and accurate, which BDF at the run's tolerances (not DOP853's tenth of
// them) would make less so: with 50, the tippe top on regularized Coulomb friction switched at
// t = 2.57 of 4 and kept Jellett's integral to 1.2e-8 instead of 7e-10 for 30% less time.
constexpr double kRealShare = 0.9, kDecayFactor = 2.0, kFactorial9 = 362880.0;
constexpr int kDecaySteps = 200;
// Steps held at the stability border count only where BDF could take longer ones: where the Jacobian's
// dominant eigenvalue lies within 75 degrees of the real axis, |Re(lambda)| >= kBdfSector |lambda|. On the
// left, BDF up to order 4 is stable there for any step (BDF4 is A(73.35)-stable, BDF3 A(86.03)); on the
// right, far from the origin, BDF damps the mode (its region of instability is bounded): a ball sliding at
// the edge of its friction cone, whose Coulomb direction s / |s| at a slip near zero makes a real positive
// eigenvalue of 7e7, went on with BDF and ran; held on DOP853, it spent 500,000 steps of 6e-8. A
// lightly damped fast mode near the imaginary axis holds DOP853 at the border as a decaying one does,
// but BDF then runs at order 1 or 2: an outside probe's x'' = -x + y/2, y'' = -1e4 y - c y' + x/2 (c = 1
// to 30: eigenvalues -c/2 +- 100i, 81 to 89.7 degrees) switched in 17 of 24 runs, each with 2-4x the steps
// of method="dop853" and 1e2 to 1e6 times its error (c = 10, rtol 1e-8: 20.7 rtol in 2,390 steps against
// 1e-5 rtol in 607). The eigenvalue's direction is that of the Ritz values of the Jacobian on the span of
// the power iteration's last two vectors (a 2 x 2 Arnoldi step, decay_share): the pair itself where the
// dominant eigenvalues are complex, the Rayleigh quotient where one real eigenvalue dominates. The held
// steps' test of a real eigenvalue asks this share to be at least kRealShare too: the quotient's rho alone,
// inflated as above, counted the c = 1 run's steps as held by a real mode (rho near |lambda| at 89.7 degrees).
constexpr double kBdfSector = 0.2588;  // cos(75 degrees)
// Between 75 and 88 degrees DOP853 stays unless the mode is far faster than the solution: kBandSteps steps at
// the border with |lambda| above kBandRatio times |f(y)| / |y|, DOP853 paying |lambda| / 4.5 steps per unit
// of time for a mode long gone. An outside probe's y'' = -1e8 y - 2 zeta 1e4 y' + x/2 beside x'' = -x + y/2,
// zeta = 0.1 to 0.25 (78-84 degrees), ran out of max_steps over t = 200 on DOP853 (127,000-148,000 steps per
// 50 s at rtol 1e-8, 3e-11 off), where BDF takes 2,000-3,700 (1e-6 off); with omega = 100 (the probe above,
// a ratio of 100) BDF took 5-7x DOP853's steps and was 1e3-1e6 times farther off, and DOP853 stays. Beyond 88
// degrees (zeta 0.035) BDF stalls: zeta = 0.005 took 917,506 BDF steps against DOP853's 115,159.
constexpr double kBdfSectorSevere = 0.0349, kBandRatio = 1000.0;  // cos(88 degrees)
constexpr int kBandSteps = 200;
// Rejected attempts in a row after which the run fails: each divides h by at least 3 (kMinFactor),
// so 60 of them shrink it by 3^60 ~ 4e28, past any scale the collapse test below lets through.
constexpr int kMaxRejectionsInARow = 60;
// Dop853Settings::tighten_after's tolerances go no lower than kTightestFactor times the given
// ones (reached after 100 times tighten_after steps), so that a long run's steps grow at most
// 10^(1/8) = 1.33x, and rtol no lower than kTightestRtol, where the error estimates meet round-off:
// the vakonomic ball of tests/test_lewis_murray.py over t = 10 takes 62,812 steps at rtol 1e-12
// (15,911 rejected) and 813,597 (203,403 rejected) as the tightening takes rtol to 1e-13.
constexpr double kTightestFactor = 0.1, kTightestRtol = 1e-12;
constexpr int kDenseDegree = 7;  // of the interpolant (dense(), interpolate())

// The counters of a DOP853 run, added to SimulationOutput::stats at its end (Stepper::add_stats).
struct Dop853Counters {
  long n_steps = 0, n_rhs = 0, n_rejected = 0;
};

// DOP853 (Hairer-Norsett-Wanner I, II.10) as a stepper of the run driver (stepper.hpp): stages K
// (n x 16, column s = stage s). After a step y_ is its end and ystart_ its start, and K_ keeps the
// step's stages for the interpolant (first same as last: K_1 of the next step is the last stage,
// or f evaluated again where the driver moved the state).
class Dop853 final : public Stepper {
 public:
  Dop853(const Model& model, const std::vector<double>& p, double tf, double direction, const IntegrationOptions& opt,
         const Dop853Settings& settings)
      : model_(model), p_(p), opt_(opt), settings_(settings), tf_(tf), dir_(direction),
        base_rtol_(opt.rtol * settings.tolerance_scale), rtol_(base_rtol_), n_(model.n_states()),
        ws_(model.borrow_workspace()), K_(n_, kStagesExtended), y_(n_), ystart_(n_), tmp_(n_), yi_(n_),
        v_prev_(n_), v_now_(n_), u_prev_(n_), F_(n_, 7), coef_(n_, kDenseDegree + 1) {
    atol_ = opt.atol;
    for (double& a : atol_) a *= settings.tolerance_scale;
  }

  // ---- the stepper (stepper.hpp) ----
  void begin(double t, const double* y) override {
    y_ = Eigen::Map<const VecX<double>>(y, n_);
    t_now_ = t_begin_ = t;
    started_ = false;
    first_bound_ = std::numeric_limits<double>::infinity();
  }

  StepResult step() override {
    StepResult r;
    try {
      r.end = advance();
    } catch (const SolverError& e) {
      t_now_ = e.t;
      failure_.flag = -1;
      failure_.name = flag_name_.empty() ? "DOP853_FAILURE" : flag_name_;
      failure_.message = "Integration failed at t = " + format_number(e.t) + ": " + e.what();
      r.failed = true;
    } catch (const TooMuchWork&) {
      r.failed = true;
    } catch (const ModelError& e) {  // the model undefined at an accepted state: a failure, as with CVODE
      failure_.flag = -1;
      failure_.name = "DOP853_FAILURE";
      failure_.message = "Integration failed at t = " + format_number(t_now_) + ": the model could not be evaluated: " +
                         e.what();
      r.failed = true;
    }
    return r;
  }

  double time() const override { return t_now_; }
  double* state() override { return y_.data(); }
  double last_step() const override { return h_step_; }
  const double* at(double te) override {
    interpolate(te, yi_.data());
    return yi_.data();
  }
  void keep_interpolant() override { ensure_dense(); }
  // The step's interpolant as CVODE's dense output holds a step (DenseOutput): the derivatives D_k at its
  // end t_e, y(t) = sum_k D_k (t - t_e)^k / k!. The interpolant is a polynomial of degree 7 in
  // x = (t - t_step) / h (interpolate()); with its monomial coefficients a_j,
  // D_k = sum_{j>=k} j! / (j-k)! a_j / h^k.
  void record_dense(DenseOutput& d) override {
    ensure_dense();
    if (!d.t_end.empty() && d.t_end.back() == t_now_) return;  // stored at a root already
    coef_.setZero();  // a_0..a_7 (n x 8): Horner's scheme of interpolate() on polynomials
    for (int c = 6, degree = 0; c >= 0; --c, ++degree) {
      coef_.col(0) += F_.col(c);
      if (c % 2 == 0) {  // times x
        for (int k = degree + 1; k >= 1; --k) coef_.col(k) = coef_.col(k - 1);
        coef_.col(0).setZero();
      } else {  // times 1 - x
        for (int k = degree + 1; k >= 1; --k) coef_.col(k) -= coef_.col(k - 1);
      }
    }
    coef_.col(0) += ystart_;
    coef_.col(1) += y_ - ystart_ - F_.col(0);  // the projection of the step's end, as interpolate()
    d.t_end.push_back(t_now_);
    d.h.push_back(h_step_);
    d.order.push_back(kDenseDegree);
    for (int k = 0; k <= kDenseDegree; ++k) {
      yi_.setZero();
      for (int j = k; j <= kDenseDegree; ++j) {
        double falling = 1.0;  // j! / (j - k)!
        for (int i = 0; i < k; ++i) falling *= j - i;
        yi_.noalias() += falling * coef_.col(j);
      }
      yi_ /= std::pow(h_step_, k);
      d.derivatives.insert(d.derivatives.end(), yi_.data(), yi_.data() + n_);
    }
  }
  Workspace& workspace() override { return *ws_; }
  bool drift_control() const override { return opt_.project; }
  double drift_rtol() const override { return rtol_; }
  StateMove how_to_move() override { return StateMove::kInPlace; }
  void moved(double, bool visible) override { stale_ = stale_ || visible; }
  void restart(double) override { stale_ = true; }
  bool hands_over() const override { return handover_; }
  bool resplit(double, bool at_start) override {
    if (!at_start) stale_ = true;  // at the start, the first step evaluates f
    return true;
  }
  void add_stats(SolverStats& s) override {
    s.n_steps += count_.n_steps;
    s.n_rhs += count_.n_rhs;
    s.n_err_test_fails += count_.n_rejected;
    s.last_order = 8;
    s.last_step = h_step_;  // signed, as CVODE's
    count_ = {};
  }
  // before the first step: a bound on the step begin() will choose
  void bound_step(double h_max) override {
    if (started_)
      h_ = std::min(h_, h_max);
    else
      first_bound_ = h_max;
  }
  std::string too_much_work_advice() const override {
    if (!capped_) return "raise max_steps";
    // held at the stability cap by a fast mode (near the imaginary axis, where auto keeps DOP853 for accuracy)
    return "raise max_steps; the steps were held at DOP853's stability limit by a fast mode (|lambda| about " +
           format_number(lambda_) + ", steps of " + format_number(h_step_abs()) +
           "): the run is stiff, and method='bdf' takes long steps through it, less accurately";
  }
  std::string diagnosis() const override { return off_domain_.empty() ? "" : "; " + off_domain_; }
  std::string failure_name() const override { return "DOP853_FAILURE"; }

 private:
  // A stage off the model's domain (a non-finite value, or a ModelError such as a metric that is
  // not positive definite there) rejects the attempt, as a recoverable error does in CVODE; at an
  // accepted state (stage 0) the ModelError ends the run.
  void f(double t, const VecX<double>& y, int stage) {
    ++count_.n_rhs;
    if (stage == 0) nonfinite_ = false;
    if (stage != 0 && !y.allFinite()) {  // a stage state that overflowed: rejected as such
      nonfinite_ = true;
      off_domain_ = "a stage state was not finite at t = " + format_number(t);
      K_.col(stage).setConstant(std::numeric_limits<double>::quiet_NaN());
      return;
    }
    try {
      model_.rhs(t, y.data(), p_.data(), K_.col(stage).data(), *ws_);
    } catch (const ModelError& e) {
      if (stage == 0) throw;
      nonfinite_ = true;
      off_domain_ = "last model error at t = " + format_number(t) + ": " + e.what();
      return;
    }
    for (int i = 0; i < n_; ++i)
      if (!std::isfinite(K_(i, stage))) {
        // at an accepted state (stage 0) no step can start: the run fails there; at another stage
        // the attempt is rejected
        if (stage == 0)
          fail("RHS_NOT_FINITE", "the right-hand side is not finite (component " + std::to_string(i) + ") at t = " +
                                     format_number(t) + (count_.n_steps == 0 ? ", at the initial state" : ", at the state reached") +
                                     " (the model is undefined there: check the state, the parameters and the forces)", t);
        nonfinite_ = true;
        off_domain_ = "the right-hand side was not finite at t = " + format_number(t);
        return;
      }
  }
  double atol(int i) const { return tol_factor_ * (atol_.size() == 1 ? atol_[0] : atol_[i]); }

  // Dop853Settings::tighten_after: the tolerances for the steps after the n-th
  void tighten(long n) {
    const long after = settings_.tighten_after;
    if (after <= 0 || n <= after) return;
    const double wanted = std::sqrt(static_cast<double>(after) / static_cast<double>(n));
    tol_factor_ = std::min(1.0, std::max({wanted, kTightestFactor, kTightestRtol / base_rtol_}));
    rtol_ = base_rtol_ * tol_factor_;
  }

  double rms(const VecX<double>& v, const VecX<double>& y) const {
    double s = 0.0;
    for (int i = 0; i < n_; ++i) {
      const double w = v(i) / (atol(i) + rtol_ * std::abs(y(i)));
      s += w * w;
    }
    return std::sqrt(s / n_);
  }

  // Hairer's starting step for a method of order 8 (one extra right-hand side).
  double initial_step(double t, double span, double dir) {
    const double d0 = rms(y_, y_), d1 = rms(K_.col(0), y_);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    h0 = std::min(h0, span);
    tmp_ = y_ + (dir * h0) * K_.col(0);
    f(t + dir * h0, tmp_, 1);
    VecX<double> diff = K_.col(1) - K_.col(0);
    const double d2 = rms(diff, y_) / h0;
    const double h1 = std::max(d1, d2) <= 1e-15 ? std::max(1e-6, h0 * 1e-3) : std::pow(0.01 / std::max(d1, d2), 1.0 / 8.0);
    return std::min({100 * h0, h1, span});
  }

  // One attempted step of size h from (t, ystart_) with K_.col(0) = f(t, ystart_): y_, K_.col(12) = f(t + h, y_),
  // and the error norm.
  double attempt(double t, double h) {
    nonfinite_ = false;
    for (int s = 1; s < kStages; ++s) {
      tmp_ = ystart_;
      for (int j = 0; j < s; ++j)
        if (kA[s * kStagesExtended + j] != 0.0) tmp_.noalias() += (h * kA[s * kStagesExtended + j]) * K_.col(j);
      f(t + kC[s] * h, tmp_, s);
    }
    y_ = ystart_;
    for (int j = 0; j < kStages; ++j)
      if (kB[j] != 0.0) y_.noalias() += (h * kB[j]) * K_.col(j);
    f(t + h, y_, kStages);
    double e5 = 0.0, e3 = 0.0;
    for (int i = 0; i < n_; ++i) {
      double a5 = 0.0, a3 = 0.0;
      for (int j = 0; j <= kStages; ++j) {
        a5 += kE5[j] * K_(i, j);
        a3 += kE3[j] * K_(i, j);
      }
      const double sc = atol(i) + rtol_ * std::max(std::abs(ystart_(i)), std::abs(y_(i)));
      e5 += (a5 / sc) * (a5 / sc);
      e3 += (a3 / sc) * (a3 / sc);
    }
    if (nonfinite_) return std::numeric_limits<double>::infinity();
    const double denom = e5 + 0.01 * e3;
    return denom > 0.0 ? std::abs(h) * e5 / std::sqrt(denom * n_) : 0.0;
  }

  double h_step_abs() const { return std::abs(h_step_); }

  // One accepted step from (t_now_, y_), its rejected attempts before it: true when it reached tf.
  bool advance() {
    const double t = t_now_, span = std::abs(tf_ - t);
    if (!started_) {
      f(t, y_, 0);
      h_ = opt_.first_step > 0.0 ? std::min(opt_.first_step, span) : initial_step(t, span, dir_);
      if (opt_.max_step > 0.0) h_ = std::min(h_, opt_.max_step);
      h_ = std::min(h_, first_bound_);
      started_ = true;
      stale_ = false;
    } else if (stale_) {  // the state moved in place since the last step
      f(t, y_, 0);
      stale_ = false;
    } else {
      K_.col(0) = K_.col(kStages);  // first same as last
    }
    ystart_.swap(y_);  // y_ is written by attempt() as the step's end
    int rejections = 0;  // in a row
    for (;;) {
      // rejected attempts count too: a run whose every attempt fails ends within max_steps of them
      if (count_.n_rejected >= opt_.max_steps) {
        y_.swap(ystart_);
        failure_.too_much_work_of = "rejected attempts";
        throw TooMuchWork();
      }
      if (!(h_ > 0.0) || !std::isfinite(h_)) {
        y_.swap(ystart_);
        fail("STEP_SIZE_INVALID", "no finite step size could be chosen at t = " + format_number(t) +
                                      " (the right-hand side or its scale is not finite there)", t);
      }
      const bool last = dir_ * (t + dir_ * h_ - tf_) >= -1e-14 * std::max(1.0, std::abs(tf_));  // reaches tf
      // the step as the time can hold it: the state moves by h while the time moves by t + h
      // rounded, which far from t = 0 differ (t0 = 1.7e9: a spacing of 2.4e-7, the steps' error
      // 3e-7 at rtol 1e-8 on 14 steps; SciPy's solvers take h = (t + h) - t the same way)
      h_ = last ? std::abs(tf_ - t) : std::abs((t + dir_ * h_) - t);
      const double err = attempt(t, dir_ * h_);
      if (!(err <= 1.0)) {
        ++count_.n_rejected;
        h_ *= std::isfinite(err) ? std::max(kMinFactor, kSafety * std::pow(err, -1.0 / 8.0)) : kMinFactor;
        rejected_last_ = true;
        capped_ = false;  // the attempt after a rejection is held by accuracy
        if (++rejections >= kMaxRejectionsInARow ||
            h_ <= collapsed_step(t, t_begin_)) {
          y_.swap(ystart_);
          const bool below_roundoff = rtol_ < 100.0 * std::numeric_limits<double>::epsilon();
          fail("STEP_SIZE_COLLAPSED", "the step size collapsed to " + format_number(h_) +
                                          (below_roundoff ? " (rtol = " + format_number(opt_.rtol) +
                                                                " asks for steps below what double precision "
                                                                "resolves: loosen rtol/atol)"
                                                          : " (the solution blows up, or the model is singular or "
                                                            "undefined just ahead)") +
                                          (off_domain_.empty() ? "" : "; " + off_domain_), t);
        }
        continue;
      }
      ++count_.n_steps;
      tighten(count_.n_steps);
      const bool stiff = settings_.stop_when_stiff && turned_stiff(h_);  // before power_step, dense() reuse tmp_
      t_step_ = t;
      h_step_ = dir_ * h_;
      dense_ready_ = false;
      double fac = err > 0.0 ? kSafety * std::pow(err, -1.0 / 8.0) : kMaxFactor;
      fac = std::min(kMaxFactor, std::max(kMinFactor, fac));
      if (rejected_last_) fac = std::min(fac, 1.0);
      rejected_last_ = false;
      t_now_ = last ? tf_ : t + dir_ * h_;
      handover_ = stiff && t_now_ != tf_;
      h_ *= fac;
      // the cap's estimate, refreshed where the step proposed comes near the cap, on the first
      // kPowerStart steps (the iteration converging), and else on every kPowerEvery-th
      if (lambda_ * h_ >= kPowerNear * kStabilityCap || count_.n_steps <= kPowerStart ||
          count_.n_steps % kPowerEvery == 0)
        lambda_ = std::max(kLambdaMemory * lambda_, power_step(t_now_));
      capped_ = lambda_ * h_ > kStabilityCap;  // held by stability, not accuracy
      if (capped_) h_ = kStabilityCap / lambda_;
      if (opt_.max_step > 0.0) h_ = std::min(h_, opt_.max_step);
      return last;
    }
  }
  // The interpolant of the accepted step (t, t + h), from ystart_ to the step's end y_ (as taken:
  // before the driver moves it, keep_interpolant()): three extra stages, then F (n x 7).
  void dense(double t, double h) {
    for (int s = kStages + 1; s < kStagesExtended; ++s) {
      tmp_ = ystart_;
      for (int j = 0; j < s; ++j)
        if (kA[s * kStagesExtended + j] != 0.0) tmp_.noalias() += (h * kA[s * kStagesExtended + j]) * K_.col(j);
      f(t + kC[s] * h, tmp_, s);
    }
    F_.col(0) = y_ - ystart_;
    F_.col(1) = h * K_.col(0) - F_.col(0);
    F_.col(2) = 2.0 * F_.col(0) - h * (K_.col(kStages) + K_.col(0));
    for (int r = 0; r < 4; ++r) {
      F_.col(3 + r).setZero();
      for (int j = 0; j < kStagesExtended; ++j)
        if (kD[r * kStagesExtended + j] != 0.0) F_.col(3 + r).noalias() += (h * kD[r * kStagesExtended + j]) * K_.col(j);
    }
  }

  void ensure_dense() {
    if (!dense_ready_) dense(t_step_, dir_ * h_step_abs());
    dense_ready_ = true;
  }

  // The interpolant at te in the last step: dense()'s polynomial, plus x times the projection that moved the
  // step's end from ystart_ + F_0 to y_ after the step (drift control; zero before it), so that samples,
  // events after the projection and the dense solution (record_dense) are one function, continuous
  // from step to step.
  void interpolate(double te, double* out) {
    ensure_dense();
    const double x = (te - t_step_) / (dir_ * h_step_abs());
    for (int i = 0; i < n_; ++i) {
      double v = 0.0;
      for (int c = 6; c >= 0; --c) {
        v += F_(i, c);
        v *= (c % 2 == 0) ? x : 1.0 - x;
      }
      out[i] = ystart_(i) + v + x * (y_(i) - ystart_(i) - F_(i, 0));
    }
  }

  [[noreturn]] void fail(const char* name, const std::string& why, double t) {
    flag_name_ = name;
    throw SolverError(why, t);
  }

  // Hairer's test on the accepted step: tmp_ still holds y_12, the argument of the last stage; and
  // the test of steps held by a decaying mode below the stability border (kDecaySteps).
  bool turned_stiff(double h) {
    const double den = (y_ - tmp_).squaredNorm();
    if (!(den > 0.0)) return count_stiff(false, false, false);
    const auto dK = K_.col(kStages) - K_.col(kStages - 1);
    const double lambda_h = std::abs(h) * std::sqrt(dK.squaredNorm() / den);
    const double rho_h = -std::abs(h) * dK.dot(y_ - tmp_) / den;
    const double decay_bound = kDecayFactor * std::pow(rtol_ * kFactorial9, 1.0 / 9.0);
    const double power_h = lambda_ * std::abs(h);  // the stability cap's estimate (see kStiffBound)
    const bool border = lambda_h > kStiffBound && power_h > kPowerNear * kStabilityCap;
    // near the imaginary axis only where the fast mode is kBandRatio times faster than the solution moves,
    // |f(y)| / |y| (the slow motion's rate once that mode is gone): there BDF's lower orders pay
    const double share = std::abs(decay_share_);
    const bool at_border = border || capped_;
    const bool banded = at_border && share < kBdfSector && share >= kBdfSectorSevere &&
                        lambda_ * y_.norm() > kBandRatio * K_.col(kStages).norm();  // |lambda| > ratio |f| / |y|
    return count_stiff(at_border && share >= kBdfSector, banded,
                       rho_h >= kRealShare * lambda_h && rho_h > decay_bound && power_h > decay_bound &&
                           decay_share_ >= kRealShare);
  }
  // One step of the power iteration on the Jacobian at the step's end (the stability cap's
  // estimate), by a difference along the kept direction v: |J v|, whether or not the solution
  // excites the fast mode. Writes tmp_ (scratch) and the last column of the interpolant's stages,
  // which dense() recomputes.
  double power_step(double t_end) {
    if (power_.size() != n_ || !(power_.norm() > 0.0) || !power_.allFinite()) {
      power_ = (y_ - tmp_).cwiseAbs() + VecX<double>::Constant(n_, 1e-3);  // the step's direction, every entry
      krylov_ = false;
    }
    power_ /= power_.norm();
    v_now_ = power_;
    const double delta = std::sqrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, y_.norm());
    tmp_ = y_ + delta * power_;
    const int col = kStagesExtended - 1;
    std::string off_domain = std::move(off_domain_);  // what f() may write here is no attempt's
    f(t_end, tmp_, col);
    off_domain_ = std::move(off_domain);
    if (nonfinite_) {  // the point beside the state is off the model's domain: no estimate
      nonfinite_ = false;
      quotients_ = 0;
      krylov_ = false;
      return 0.0;
    }
    power_ = (K_.col(col) - K_.col(kStages)) / delta;
    const double quotient = power_.norm();
    if (!(quotient > 0.0) || !std::isfinite(quotient)) {
      quotients_ = 0;
      krylov_ = false;
      return 0.0;
    }
    double invariant = 0.0;  // |lambda| of the Ritz values where their plane is nearly invariant, else 0
    if (krylov_) {
      const Ritz r = ritz();
      decay_share_ = r.share;
      if (r.modulus > 0.0 && r.residual <= kInvariant * r.modulus) invariant = r.modulus;
    }
    v_prev_.swap(v_now_);
    u_prev_ = power_;
    krylov_ = true;
    // the geometric mean of the last kQuotients quotients, |J^m v|^(1/m): a non-normal J makes them
    // alternate around its spectral radius (an oscillator of 1000 rad/s in (x, x'), J = [0 1; -1e6 0]:
    // 1e6 and 1) or stay above it (a shear coupling K = [1 1e4; 0 4]: 1e4 where the radius is 2), and a
    // pair whose cube or fifth power is real (at 120 or 144 degrees) turns the iterates in step with the
    // window, inflating it 3.5-6.5x (an outside probe: 5,149 steps at zeta = 0.5 where 0.499 took 1,441).
    // The Ritz values of an invariant plane are exact, whatever J's normality: they are the estimate there.
    log_quotient_[quotients_ % kQuotients] = std::log(quotient);
    if (++quotients_ < kQuotients) return invariant;
    if (invariant > 0.0) return invariant;
    double sum = 0.0;
    for (double l : log_quotient_) sum += l;
    return std::exp(sum / kQuotients);
  }
  // -Re(lambda) / |lambda| of the dominant eigenvalue lambda (kBdfSector, kRealShare): of the larger Ritz
  // value on span{v_prev_, v_now_}, J v_prev_ = u_prev_ and J v_now_ = power_ (both v of unit length), with
  // the orthonormal basis q1 = v_prev_, q2 = (v_now_ - c v_prev_) / w, c = v_prev_ . v_now_, w^2 = 1 - c^2.
  // The residual is that of J on the plane, max(|J q_i - P J q_i|) (P its projector), from the same dot products.
  struct Ritz {
    double share, modulus, residual;
  };
  Ritz ritz() const {
    const double c = v_prev_.dot(v_now_), h11 = v_prev_.dot(u_prev_), uu = u_prev_.squaredNorm();
    const double w2 = 1.0 - c * c;
    if (w2 < 1e-10)  // one direction: a real eigenvalue, its Rayleigh quotient
      return {h11 < 0.0 ? 1.0 : -1.0, std::abs(h11), std::sqrt(std::max(0.0, uu - h11 * h11))};
    const double w = std::sqrt(w2), vu = v_now_.dot(u_prev_), pu = v_prev_.dot(power_), up = u_prev_.dot(power_);
    const double h21 = (vu - c * h11) / w, h12 = (pu - c * h11) / w;
    const double h22 = (v_now_.dot(power_) - c * vu - c * pu + c * c * h11) / w2;
    const double image2 = (power_.squaredNorm() - 2.0 * c * up + c * c * uu) / w2;  // |J q2|^2
    const double residual = std::sqrt(std::max({0.0, uu - h11 * h11 - h21 * h21, image2 - h12 * h12 - h22 * h22}));
    const double half = 0.5 * (h11 + h22), disc = half * half - (h11 * h22 - h12 * h21);
    if (disc < 0.0) {  // a complex pair: |lambda|^2 = det
      const double modulus = std::sqrt(half * half - disc);
      return {-half / modulus, modulus, residual};
    }
    const double root = std::sqrt(disc), dominant = half >= 0.0 ? half + root : half - root;
    return {dominant < 0.0 ? 1.0 : -1.0, std::abs(dominant), residual};
  }
  bool count_stiff(bool at_border, bool banded, bool held) {
    if (at_border || banded || held) {
      non_stiff_ = 0;
      if (banded) return ++banded_ >= kBandSteps;
      if (at_border && ++stiff_ >= kStiffSteps) return true;
      return ++held_ >= kDecaySteps;
    }
    if (++non_stiff_ >= kNonStiffSteps) stiff_ = held_ = banded_ = 0;
    return false;
  }

  struct TooMuchWork {};

  Dop853Counters count_;
  std::string flag_name_;  // STEP_SIZE_COLLAPSED, STEP_SIZE_INVALID, RHS_NOT_FINITE
  const Model& model_;
  const std::vector<double>& p_;
  const IntegrationOptions& opt_;
  const Dop853Settings settings_;
  double tf_, dir_;
  double base_rtol_, rtol_;  // the run's rtol (times the settings' scale), and as tightened
  std::vector<double> atol_;  // the run's atol times the settings' scale
  double tol_factor_ = 1.0;  // tighten()
  int n_;
  WorkspaceLease ws_;  // from the model's pool (no allocation once sized)
  bool nonfinite_ = false;
  bool started_ = false, stale_ = false, handover_ = false, rejected_last_ = false, dense_ready_ = false;
  bool capped_ = false;    // the step's size was the stability cap's (kStabilityCap / lambda_)
  double lambda_ = 0.0;    // the largest recent estimate of |lambda| (power_step, kLambdaMemory)
  double t_now_ = 0.0, h_ = 0.0;      // the time reached, the next step's size
  double t_begin_ = 0.0;  // where the stepper began (collapsed_step)
  double first_bound_ = std::numeric_limits<double>::infinity();  // bound_step() before the first step
  double t_step_ = 0.0, h_step_ = 0.0;  // the last step: its start and its signed size
  std::string off_domain_;  // why the last rejected attempt left the model's domain
  int stiff_ = 0, held_ = 0, banded_ = 0, non_stiff_ = 0;  // the counters of turned_stiff
  MatX<double> K_;
  VecX<double> y_, ystart_, tmp_, yi_;
  VecX<double> power_;  // the direction of power_step's iteration
  // the iteration's last two unit vectors and the image J v_prev_ (decay_share), while they follow each other
  VecX<double> v_prev_, v_now_, u_prev_;
  bool krylov_ = false;
  double decay_share_ = 1.0;  // -Re(lambda) / |lambda| of the dominant eigenvalue (1 until estimated)
  std::array<double, kQuotients> log_quotient_{};  // its last quotients log |J v| (a ring)
  long quotients_ = 0;  // how many in a row
  MatX<double> F_;
  MatX<double> coef_;  // record_dense(): the interpolant's monomial coefficients (n x 8)
};

}  // namespace

// ---- method "dop853" of integrate() (integrator.hpp) ----

void check_dop853_supports(const Model& model, const IntegrationOptions& opt) {
  auto refuse = [](const std::string& what, const char* instead) {
    throw InputError("method='dop853' does not support " + what + ": use method='" + instead + "' (or 'auto')");
  };
  if (!opt.sensitivities.empty()) refuse("sensitivities", "adams");
  if (model.stiff()) refuse("stiff models", "bdf");  // Adams, explicit too, fails on them as DOP853 would
}

std::unique_ptr<Stepper> make_dop853(const Model& model, const std::vector<double>& params, double tf, double direction,
                                     const IntegrationOptions& opt, const Dop853Settings& settings) {
  return std::make_unique<Dop853>(model, params, tf, direction, opt, settings);
}

}  // namespace nonholo
