#include "nonholo/explicit_rk.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "nonholo/dop853_coefficients.hpp"
#include "nonholo/errors.hpp"
#include "nonholo/format.hpp"
#include "nonholo/integrator.hpp"
#include "nonholo/linalg.hpp"

namespace nonholo {

namespace {

using namespace dop853;

constexpr double kSafety = 0.9, kMinFactor = 1.0 / 3.0, kMaxFactor = 6.0;
// Hairer's stiffness test (DOP853's, HNW II, section IV.2): h |lambda| estimated from the last two
// stages, which both sit at t + h (c_12 = 1), as h |f(y_new) - f(y_12)| / |y_new - y_12|. Above
// kStiffBound (near the border of the method's stability region) the step is held by stability,
// not accuracy; kStiffSteps such steps without kNonStiffSteps in a row between them make the run
// stiff.
constexpr double kStiffBound = 6.1;
constexpr int kStiffSteps = 15, kNonStiffSteps = 6;
// Rejected attempts in a row after which the run fails: each divides h by at least 3 (kMinFactor),
// so 60 of them shrink it by 3^60 ~ 4e28, past any scale the collapse test below lets through.
constexpr int kMaxRejectionsInARow = 60;
// ExplicitRkOptions::tighten_after's tolerances go no lower than kTightestFactor times the given
// ones (reached after 100 times tighten_after steps), so that a long run's steps grow at most
// 10^(1/8) = 1.33x, and rtol no lower than kTightestRtol, where the error estimates meet round-off:
// the vakonomic ball of tests/test_lewis_murray.py over t = 10 takes 62,812 steps at rtol 1e-12
// (15,911 rejected) and 813,597 (203,403 rejected) as the tightening takes rtol to 1e-13.
constexpr double kTightestFactor = 0.1, kTightestRtol = 1e-12;

// One DOP853 integration (Hairer-Norsett-Wanner I, II.10): stages K (n x 16, column s = stage s).
class Dop853 {
 public:
  Dop853(const Model& model, const std::vector<double>& p, const ExplicitRkOptions& opt)
      : model_(model), parts_(model.parts()), p_(p), opt_(opt), rtol_(opt.rtol), n_(model.n_states()),
        ws_(model.borrow_workspace()),
        K_(n_, kStagesExtended), y_(n_), ynew_(n_), tmp_(n_), corr_(n_), F_(n_, 7) {}

  // A stage off the model's domain (a non-finite value, or a ModelError such as a metric that is
  // not positive definite there) rejects the attempt, as a recoverable error does in CVODE; at an
  // accepted state (stage 0) the ModelError ends the run.
  void f(double t, const VecX<double>& y, int stage) {
    ++out.n_rhs;
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
                                     format_number(t) + (out.n_steps == 0 ? ", at the initial state" : ", at the state reached") +
                                     " (the model is undefined there: check the state, the parameters and the forces)", t);
        nonfinite_ = true;
        off_domain_ = "the right-hand side was not finite at t = " + format_number(t);
        return;
      }
  }

  double atol(int i) const { return tol_factor_ * (opt_.atol.size() == 1 ? opt_.atol[0] : opt_.atol[i]); }

  // ExplicitRkOptions::tighten_after: the tolerances for the steps after the n-th
  void tighten(long n) {
    if (opt_.tighten_after <= 0 || n <= opt_.tighten_after) return;
    const double wanted = std::sqrt(static_cast<double>(opt_.tighten_after) / static_cast<double>(n));
    tol_factor_ = std::min(1.0, std::max({wanted, kTightestFactor, kTightestRtol / opt_.rtol}));
    rtol_ = opt_.rtol * tol_factor_;
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

  // One attempted step of size h from (t, y_) with K_.col(0) = f(t, y_): ynew_, K_.col(12) = f(t + h, ynew_),
  // and the error norm.
  double attempt(double t, double h) {
    nonfinite_ = false;
    for (int s = 1; s < kStages; ++s) {
      tmp_ = y_;
      for (int j = 0; j < s; ++j)
        if (kA[s * kStagesExtended + j] != 0.0) tmp_.noalias() += (h * kA[s * kStagesExtended + j]) * K_.col(j);
      f(t + kC[s] * h, tmp_, s);
    }
    ynew_ = y_;
    for (int j = 0; j < kStages; ++j)
      if (kB[j] != 0.0) ynew_.noalias() += (h * kB[j]) * K_.col(j);
    f(t + h, ynew_, kStages);
    double e5 = 0.0, e3 = 0.0;
    for (int i = 0; i < n_; ++i) {
      double a5 = 0.0, a3 = 0.0;
      for (int j = 0; j <= kStages; ++j) {
        a5 += kE5[j] * K_(i, j);
        a3 += kE3[j] * K_(i, j);
      }
      const double sc = atol(i) + rtol_ * std::max(std::abs(y_(i)), std::abs(ynew_(i)));
      e5 += (a5 / sc) * (a5 / sc);
      e3 += (a3 / sc) * (a3 / sc);
    }
    if (nonfinite_) return std::numeric_limits<double>::infinity();
    const double denom = e5 + 0.01 * e3;
    return denom > 0.0 ? std::abs(h) * e5 / std::sqrt(denom * n_) : 0.0;
  }

  // The interpolant of the accepted step (t, t + h): three extra stages, then F (n x 7).
  void dense(double t, double h) {
    for (int s = kStages + 1; s < kStagesExtended; ++s) {
      tmp_ = y_;
      for (int j = 0; j < s; ++j)
        if (kA[s * kStagesExtended + j] != 0.0) tmp_.noalias() += (h * kA[s * kStagesExtended + j]) * K_.col(j);
      f(t + kC[s] * h, tmp_, s);
    }
    F_.col(0) = ynew_ - y_;
    F_.col(1) = h * K_.col(0) - F_.col(0);
    F_.col(2) = 2.0 * F_.col(0) - h * (K_.col(kStages) + K_.col(0));
    for (int r = 0; r < 4; ++r) {
      F_.col(3 + r).setZero();
      for (int j = 0; j < kStagesExtended; ++j)
        if (kD[r * kStagesExtended + j] != 0.0) F_.col(3 + r).noalias() += (h * kD[r * kStagesExtended + j]) * K_.col(j);
    }
  }

  void interpolate(double x, double* out) const {
    for (int i = 0; i < n_; ++i) {
      double v = 0.0;
      for (int c = 6; c >= 0; --c) {
        v += F_(i, c);
        v *= (c % 2 == 0) ? x : 1.0 - x;
      }
      out[i] = y_(i) + v;
    }
  }

  [[noreturn]] void fail(const char* name, const std::string& why, double t) {
    out.flag_name = name;
    throw SolverError(why, t);
  }

  // Hairer's test on the accepted step: tmp_ still holds y_12, the argument of the last stage.
  bool turned_stiff(double h) {
    const double den = (ynew_ - tmp_).squaredNorm();
    const double lambda_h = den > 0.0 ? std::abs(h) * std::sqrt((K_.col(kStages) - K_.col(kStages - 1)).squaredNorm() / den)
                                      : 0.0;
    if (lambda_h > kStiffBound) {
      non_stiff_ = 0;
      return ++stiff_ >= kStiffSteps;
    }
    if (++non_stiff_ >= kNonStiffSteps) stiff_ = 0;
    return false;
  }

  // Drift control after an accepted step (ExplicitRkOptions::project, unit_norm): true when y_
  // moved by more than the error control can see, so that K_1 = f(t, y_) must be evaluated again.
  bool project(double t) {
    bool visible = false;
    if (opt_.project && parts_.constraints) {
      double residual = 0.0, scale = 1.0;
      parts_.constraints->constraint_residual(t, y_.data(), p_.data(), *ws_, &residual, &scale);
      if (residual > kDriftTol * rtol_ * scale) {
        corr_.setZero();
        parts_.constraints->project(t, y_.data(), p_.data(), corr_.data(), nullptr, nullptr, *ws_);
        y_ += corr_;
        visible = true;
      }
    }
    if (!opt_.unit_norm.empty()) {
      // rescaled after every step, as BDF's projection does: the groups stay at norm 1 to round-off
      visible = off_unit_norm(kDriftTol * rtol_) || visible;
      corr_.setZero();
      project_unit_norm(opt_.unit_norm, y_.data(), corr_.data(), nullptr);
      y_ += corr_;
    }
    if (visible) ++out.n_projections;
    return visible;
  }

  bool off_unit_norm(double bound) const {
    for (const auto& g : opt_.unit_norm) {
      double s2 = 0.0;
      for (int i : g.position) s2 += y_(i) * y_(i);
      if (std::abs(std::sqrt(s2) - 1.0) > bound) return true;
    }
    return false;
  }

  // The frame watch after an accepted step (or at the start): a re-split maps y_ and refreshes
  // K_.col(0) = f(t, y_) (first same as last no longer holds); a singular frame ends the run.
  void watch_frame(double t, bool at_start) {
    const FrameCheck check = parts_.frame_watch->frame_check(t, y_.data(), p_.data(), *ws_, at_start);
    if (check.action == FrameCheck::kNone) return;
    if (check.action == FrameCheck::kSingular) {
      out.frame_singular = true;
      throw SolverError(check.message, t);
    }
    out.frame_switch_solved.push_back(parts_.frame_watch->resplit(t, y_.data(), p_.data(), *ws_));
    out.frame_switch_t.push_back(t);
    if (!at_start) f(t, y_, 0);  // at the start, run() evaluates it next
  }

  // Fills `out` (a failure throws SolverError or ModelError, caught by integrate_dop853).
  void run(double t0, double tf, const std::vector<double>& y0, const std::vector<double>& t_eval) {
    const double dir = tf > t0 ? 1.0 : -1.0, span = std::abs(tf - t0);
    auto ahead = [&](double a, double b) { return dir * (b - a) >= 0.0; };  // a before or at b
    y_ = Eigen::Map<const VecX<double>>(y0.data(), n_);
    auto record = [&](double t, const double* y) {
      out.t.push_back(t);
      out.y.insert(out.y.end(), y, y + n_);
    };
    std::size_t next = 0;
    while (next < t_eval.size() && ahead(t_eval[next], t0)) record(t_eval[next++], y_.data());
    if (t_eval.empty()) record(t0, y_.data());
    double t = t0;
    t_now_ = t0;
    const bool watching = parts_.frame_watch != nullptr;
    if (watching) watch_frame(t, true);
    if (opt_.project || !opt_.unit_norm.empty()) project(t);  // y0 checked to the tolerance: no-op
    f(t, y_, 0);
    double h = opt_.first_step > 0.0 ? std::min(opt_.first_step, span) : initial_step(t, span, dir);
    if (opt_.max_step > 0.0) h = std::min(h, opt_.max_step);
    bool rejected_last = false;
    int rejections = 0;  // in a row
    const auto start = std::chrono::steady_clock::now();
    std::vector<double> yi(n_);
    while (dir * (tf - t) > 0.0) {
      // rejected attempts count too: a run whose every attempt fails ends within max_steps of them
      if (out.n_steps >= opt_.max_steps || out.n_rejected >= opt_.max_steps)
        fail("TOO_MUCH_WORK", "the integration stopped after max_steps = " + std::to_string(opt_.max_steps) +
                                  (out.n_steps >= opt_.max_steps ? " steps" : " rejected attempts") +
                                  " (raise max_steps)" + (off_domain_.empty() ? "" : "; " + off_domain_), t);
      if (!(h > 0.0) || !std::isfinite(h))
        fail("STEP_SIZE_INVALID", "no finite step size could be chosen at t = " + format_number(t) +
                                      " (the right-hand side or its scale is not finite there)", t);
      if ((out.n_steps + out.n_rejected) % 64 == 63) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (opt_.max_wall_time > 0 && elapsed > opt_.max_wall_time)
          fail("WALL_TIME_EXCEEDED", "the integration stopped after max_wall_time = " +
                                         format_number(opt_.max_wall_time) + " s (raise max_wall_time or loosen rtol)", t);
        if (opt_.interrupted && opt_.interrupted()) {
          out.interrupted = true;
          out.t_last = t;
          return;
        }
      }
      const bool last = dir * (t + dir * h - tf) >= -1e-14 * std::max(1.0, std::abs(tf));  // reaches tf
      if (last) h = std::abs(tf - t);
      const double err = attempt(t, dir * h);
      if (!(err <= 1.0)) {
        ++out.n_rejected;
        h *= std::isfinite(err) ? std::max(kMinFactor, kSafety * std::pow(err, -1.0 / 8.0)) : kMinFactor;
        rejected_last = true;
        if (++rejections >= kMaxRejectionsInARow ||
            h <= 1e3 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t)))
          fail("STEP_SIZE_COLLAPSED", "the step size collapsed to " + format_number(h) +
                                          " (the solution blows up, or the model is singular or undefined just ahead)" +
                                          (off_domain_.empty() ? "" : "; " + off_domain_), t);
        continue;
      }
      ++out.n_steps;
      rejections = 0;
      tighten(out.n_steps);
      const bool stiff = opt_.stop_when_stiff && turned_stiff(h);  // before dense() reuses tmp_
      const double t_new = last ? tf : t + dir * h;
      if (next < t_eval.size() && ahead(t_eval[next], t_new)) {
        dense(t, dir * h);
        while (next < t_eval.size() && ahead(t_eval[next], t_new)) {
          interpolate((t_eval[next] - t) / (dir * h), yi.data());
          record(t_eval[next++], yi.data());
        }
      }
      double fac = err > 0.0 ? kSafety * std::pow(err, -1.0 / 8.0) : kMaxFactor;
      fac = std::min(kMaxFactor, std::max(kMinFactor, fac));
      if (rejected_last) fac = std::min(fac, 1.0);
      rejected_last = false;
      t = t_now_ = t_new;
      y_.swap(ynew_);
      K_.col(0) = K_.col(kStages);  // first same as last
      // the step's end as recorded: projected (drift control), in the frame it was taken in
      const bool handover = stiff && t != tf;
      if (!handover && (opt_.project || !opt_.unit_norm.empty()) && project(t)) f(t, y_, 0);
      if (t_eval.empty()) record(t, y_.data());
      if (handover) {
        out.stiff = true;
        out.t_last = t;
        out.y_last.assign(y_.data(), y_.data() + n_);
        return;
      }
      if (watching) watch_frame(t, false);
      h *= fac;
      if (opt_.max_step > 0.0) h = std::min(h, opt_.max_step);
    }
    out.t_last = t;
  }

  ExplicitRkOutput out;
  // The last accepted state and its time (where a failed run stopped).
  const VecX<double>& state() const { return y_; }
  double time() const { return t_now_; }

 private:
  const Model& model_;
  const ModelParts parts_;  // the model's parts, asked for once
  const std::vector<double>& p_;
  const ExplicitRkOptions& opt_;
  double rtol_;
  double tol_factor_ = 1.0;  // tighten()
  int n_;
  WorkspaceLease ws_;  // from the model's pool (no allocation once sized)
  bool nonfinite_ = false;
  double t_now_ = 0.0;
  std::string off_domain_;  // why the last rejected attempt left the model's domain
  int stiff_ = 0, non_stiff_ = 0;  // Hairer's counters (turned_stiff)
  MatX<double> K_;
  VecX<double> y_, ynew_, tmp_, corr_;
  MatX<double> F_;
};

}  // namespace

ExplicitRkOutput integrate_dop853(const Model& model, const std::vector<double>& p, double t0, double tf,
                                  const std::vector<double>& y0, const std::vector<double>& t_eval,
                                  const ExplicitRkOptions& options) {
  if (!(t0 != tf) || !std::isfinite(t0) || !std::isfinite(tf)) throw InputError("t_span must be finite with t0 != tf");
  if (!(options.rtol > 0.0)) throw InputError("rtol must be positive");
  if (options.atol.empty()) throw InputError("atol must be given");
  if (static_cast<int>(y0.size()) != model.n_states()) throw InputError("y0 has the wrong length");
  Dop853 rk(model, p, options);
  try {
    rk.run(t0, tf, y0, t_eval);
  } catch (const SolverError& e) {
    rk.out.status = -1;
    rk.out.t_last = e.t;
    rk.out.message = e.what();
  } catch (const ModelError& e) {  // the model undefined at an accepted state: a failure, as with CVODE
    rk.out.status = -1;
    rk.out.t_last = rk.time();
    rk.out.message = std::string("the model could not be evaluated: ") + e.what();
  }
  if (!rk.out.stiff) {  // the state where the run ended (a handover to BDF has set it already)
    const VecX<double>& y = rk.state();
    rk.out.y_last.assign(y.data(), y.data() + y.size());
  }
  return std::move(rk.out);
}

// ---- method "dop853" of integrate() (integrator.hpp) ----

void check_dop853_supports(const Model& model, const std::vector<EventSpec>& events, const IntegrationOptions& opt) {
  auto refuse = [](const std::string& what) {
    throw InputError("method='dop853' does not support " + what + ": use method='adams' (or 'auto')");
  };
  if (!events.empty()) refuse("events");
  if (!opt.sensitivities.empty()) refuse("sensitivities");
  if (opt.dense_output) refuse("dense_output");
  if (model.stiff()) refuse("stiff models");
}

std::vector<double> run_dop853(const Model& model, const std::vector<double>& params, double t0, double tf,
                               const std::vector<double>& y0, const std::vector<double>& t_eval,
                               const IntegrationOptions& opt, const std::function<bool()>& interrupted,
                               SimulationOutput& out, double tolerance_scale, bool stop_when_stiff,
                               long tighten_after) {
  ExplicitRkOptions o;
  o.rtol = opt.rtol * tolerance_scale;
  o.atol = opt.atol;
  for (double& a : o.atol) a *= tolerance_scale;
  o.max_step = opt.max_step;
  o.first_step = opt.first_step;
  o.max_steps = opt.max_steps;
  o.max_wall_time = opt.max_wall_time;
  o.project = opt.project;
  if (opt.project) o.unit_norm = opt.unit_norm;
  o.stop_when_stiff = stop_when_stiff;
  o.tighten_after = tighten_after;
  if (interrupted) o.interrupted = interrupted;
  const auto start = std::chrono::steady_clock::now();
  ExplicitRkOutput rk = integrate_dop853(model, params, t0, tf, y0, t_eval, o);
  out.t = std::move(rk.t);
  out.y = std::move(rk.y);
  out.method = "dop853";
  out.interrupted = rk.interrupted;
  out.status = rk.status;
  out.t_last = rk.status == 0 && !rk.stiff ? tf : rk.t_last;
  out.stats.n_steps = rk.n_steps;
  out.stats.n_rhs = rk.n_rhs;
  out.stats.n_err_test_fails = rk.n_rejected;
  out.stats.n_proj = rk.n_projections;
  out.stats.last_order = 8;
  out.stats.cpu_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.frame_switch_t = std::move(rk.frame_switch_t);
  out.frame_switch_solved = std::move(rk.frame_switch_solved);
  if (rk.stiff) return std::move(rk.y_last);
  out.y_last = std::move(rk.y_last);
  if (rk.status == 0) {
    out.message = "The solver successfully reached the end of the integration interval.";
  } else if (rk.frame_singular) {
    out.flag_name = "FRAME_SINGULAR";
    out.message = "Integration stopped at t = " + format_number(out.t_last) + ": " + rk.message;
  } else {
    out.flag = -1;
    out.flag_name = rk.flag_name.empty() ? "DOP853_FAILURE" : rk.flag_name;
    out.message = "Integration failed at t = " + format_number(out.t_last) + ": " + rk.message;
  }
  return {};
}

}  // namespace nonholo
