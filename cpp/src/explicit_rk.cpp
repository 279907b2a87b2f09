#include "nonholo/explicit_rk.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "nonholo/dense_events.hpp"
#include "nonholo/dop853_coefficients.hpp"
#include "nonholo/errors.hpp"
#include "nonholo/format.hpp"
#include "nonholo/integrator.hpp"
#include "nonholo/linalg.hpp"
#include "nonholo/run_record.hpp"

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
// Dop853Settings::tighten_after's tolerances go no lower than kTightestFactor times the given
// ones (reached after 100 times tighten_after steps), so that a long run's steps grow at most
// 10^(1/8) = 1.33x, and rtol no lower than kTightestRtol, where the error estimates meet round-off:
// the vakonomic ball of tests/test_lewis_murray.py over t = 10 takes 62,812 steps at rtol 1e-12
// (15,911 rejected) and 813,597 (203,403 rejected) as the tightening takes rtol to 1e-13.
constexpr double kTightestFactor = 0.1, kTightestRtol = 1e-12;

// The counters of a DOP853 run, written to SimulationOutput::stats at its end.
struct Dop853Counters {
  long n_steps = 0, n_rhs = 0, n_rejected = 0, n_projections = 0;
};

// One DOP853 integration (Hairer-Norsett-Wanner I, II.10): stages K (n x 16, column s = stage s).
class Dop853 {
 public:
  Dop853(const Model& model, const std::vector<double>& p, const IntegrationOptions& opt, const Dop853Settings& settings,
         RunRecord& record, EventValues& events)
      : model_(model), parts_(model.parts()), p_(p), opt_(opt), settings_(settings), record_(record),
        base_rtol_(opt.rtol * settings.tolerance_scale), rtol_(base_rtol_), n_(model.n_states()),
        ws_(model.borrow_workspace()), K_(n_, kStagesExtended), y_(n_), ynew_(n_), tmp_(n_), corr_(n_), F_(n_, 7) {
    atol_ = opt.atol;
    for (double& a : atol_) a *= settings.tolerance_scale;
    if (opt.project) unit_norm_ = opt.unit_norm;
    if (events.size() > 0) search_.emplace(events, *ws_, n_, record.direction());
  }

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
    flag_name_ = name;
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

  // Drift control after an accepted step (options project, unit_norm): true when y_
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
    if (!unit_norm_.empty()) {
      // rescaled after every step, as BDF's projection does: the groups stay at norm 1 to round-off
      visible = off_unit_norm(kDriftTol * rtol_) || visible;
      corr_.setZero();
      project_unit_norm(unit_norm_, y_.data(), corr_.data(), nullptr);
      y_ += corr_;
    }
    if (visible) ++count_.n_projections;
    return visible;
  }

  bool off_unit_norm(double bound) const {
    for (const auto& g : unit_norm_) {
      double s2 = 0.0;
      for (int i : g.position) s2 += y_(i) * y_(i);
      if (std::abs(std::sqrt(s2) - 1.0) > bound) return true;
    }
    return false;
  }

  // The frame watch after an accepted step (or at the start): a re-split maps y_ and refreshes
  // K_.col(0) = f(t, y_) (first same as last no longer holds); a singular frame ends the run.
  // True after a re-split.
  bool watch_frame(double t, bool at_start) {
    const FrameCheck check = parts_.frame_watch->frame_check(t, y_.data(), p_.data(), *ws_, at_start);
    if (check.action == FrameCheck::kNone) return false;
    if (check.action == FrameCheck::kSingular) {
      frame_singular_ = true;
      throw SolverError(check.message, t);
    }
    SimulationOutput& o = record_.output();
    o.frame_switch_solved.push_back(parts_.frame_watch->resplit(t, y_.data(), p_.data(), *ws_));
    o.frame_switch_t.push_back(t);
    if (!at_start) f(t, y_, 0);  // at the start, run() evaluates it next
    return true;
  }

  // The run from (t0, y0) to tf, the end, a terminal event, a limit (RunRecord::within_limits: the
  // report written) or the handover to BDF (stop_when_stiff: handed_over_); a failure throws SolverError
  // or ModelError (run_dop853 reports it).
  void run(double t0, double tf, const std::vector<double>& y0) {
    const double dir = record_.direction(), span = std::abs(tf - t0);
    y_ = Eigen::Map<const VecX<double>>(y0.data(), n_);
    record_.emit_up_to(t0, [&](double) { return y_.data(); });
    if (record_.every_step()) record_.record(t0, y_.data());
    double t = t0;
    t_now_ = t0;
    const bool watching = parts_.frame_watch != nullptr;
    if (watching) watch_frame(t, true);
    if (opt_.project || !unit_norm_.empty()) project(t);  // y0 checked to the tolerance: no-op
    f(t, y_, 0);
    if (search_) search_->start(t, y_.data());
    double h = opt_.first_step > 0.0 ? std::min(opt_.first_step, span) : initial_step(t, span, dir);
    if (opt_.max_step > 0.0) h = std::min(h, opt_.max_step);
    bool rejected_last = false;
    int rejections = 0;  // in a row
    std::vector<double> yi(n_);
    while (dir * (tf - t) > 0.0) {
      // rejected attempts count too: a run whose every attempt fails ends within max_steps of them
      if (count_.n_steps >= opt_.max_steps || count_.n_rejected >= opt_.max_steps) {
        record_.too_much_work(t, count_.n_steps >= opt_.max_steps ? "steps" : "rejected attempts", "raise max_steps",
                              off_domain_.empty() ? "" : "; " + off_domain_);
        return;
      }
      if (!(h > 0.0) || !std::isfinite(h))
        fail("STEP_SIZE_INVALID", "no finite step size could be chosen at t = " + format_number(t) +
                                      " (the right-hand side or its scale is not finite there)", t);
      if ((count_.n_steps + count_.n_rejected) % RunRecord::kLimitCheckSteps == RunRecord::kLimitCheckSteps - 1 &&
          !record_.within_limits(t, "", off_domain_.empty() ? "" : "; " + off_domain_))
        return;
      const bool last = dir * (t + dir * h - tf) >= -1e-14 * std::max(1.0, std::abs(tf));  // reaches tf
      if (last) h = std::abs(tf - t);
      const double err = attempt(t, dir * h);
      if (!(err <= 1.0)) {
        ++count_.n_rejected;
        h *= std::isfinite(err) ? std::max(kMinFactor, kSafety * std::pow(err, -1.0 / 8.0)) : kMinFactor;
        rejected_last = true;
        if (++rejections >= kMaxRejectionsInARow ||
            h <= 1e3 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t)))
          fail("STEP_SIZE_COLLAPSED", "the step size collapsed to " + format_number(h) +
                                          " (the solution blows up, or the model is singular or undefined just ahead)" +
                                          (off_domain_.empty() ? "" : "; " + off_domain_), t);
        continue;
      }
      ++count_.n_steps;
      rejections = 0;
      tighten(count_.n_steps);
      const bool stiff = settings_.stop_when_stiff && turned_stiff(h);  // before dense() reuses tmp_
      const double t_new = last ? tf : t + dir * h;
      // the step's interpolant, its three extra stages computed on first use
      bool dense_ready = false;
      auto interpolant = [&, t_step = t, h_step = dir * h](double te, double* y) {
        if (!dense_ready) dense(t_step, h_step);
        dense_ready = true;
        interpolate((te - t_step) / h_step, y);
      };
      if (search_ && stop_at_event(t_new, interpolant)) return;
      if (record_.sample_due(t_new))
        record_.emit_up_to(t_new, [&](double te) {
          interpolant(te, yi.data());
          return yi.data();
        });
      double fac = err > 0.0 ? kSafety * std::pow(err, -1.0 / 8.0) : kMaxFactor;
      fac = std::min(kMaxFactor, std::max(kMinFactor, fac));
      if (rejected_last) fac = std::min(fac, 1.0);
      rejected_last = false;
      t = t_now_ = t_new;
      y_.swap(ynew_);
      K_.col(0) = K_.col(kStages);  // first same as last
      // the step's end as recorded: projected (drift control), in the frame it was taken in
      const bool handover = stiff && t != tf;
      bool moved = false;  // y_ changed in place: the events' values there are evaluated again
      if (!handover && (opt_.project || !unit_norm_.empty()) && project(t)) {
        f(t, y_, 0);
        moved = true;
      }
      if (record_.every_step()) record_.record(t, y_.data());
      if (handover) {
        handed_over_ = true;
        return;
      }
      if (watching) moved = watch_frame(t, false) || moved;
      if (search_ && moved) search_->start(t, y_.data());
      h *= fac;
      if (opt_.max_step > 0.0) h = std::min(h, opt_.max_step);
    }
    record_.reached_end();
  }

  // The events on the accepted step to t_new (before the samples after a root): each occurrence
  // recorded; true when a terminal one ends the run at its root (the samples up to it emitted,
  // y_ the state there).
  template <class Interpolant>
  bool stop_at_event(double t_new, Interpolant& interpolant) {
    double t_stop = t_new;
    const bool terminal = search_->step(t_new, ynew_.data(), interpolant,
                                        [&](double t_root, const double* y_root, const std::vector<std::size_t>& which) {
                                          bool stop = false;
                                          for (std::size_t i : which) stop = record_.event(i, t_root, y_root) || stop;
                                          if (stop) {
                                            t_stop = t_root;
                                            y_stop_ = Eigen::Map<const VecX<double>>(y_root, n_);
                                          }
                                          return stop;
                                        });
    if (!terminal) return false;
    std::vector<double> yi(n_);
    record_.emit_up_to(t_stop, [&](double te) {
      if (te == t_stop) return static_cast<const double*>(y_stop_.data());
      interpolant(te, yi.data());
      return static_cast<const double*>(yi.data());
    });
    if (record_.every_step()) record_.record(t_stop, y_stop_.data());
    record_.stopped_by_event();
    y_ = y_stop_;
    t_now_ = t_stop;
    return true;
  }

  // The counters, the frame watch's verdict and the failure's kind, for run_dop853's report.
  Dop853Counters count_;
  bool handed_over_ = false;  // stopped at time() by the stiffness test (stop_when_stiff)
  bool frame_singular_ = false;
  std::string flag_name_;  // STEP_SIZE_COLLAPSED, STEP_SIZE_INVALID, RHS_NOT_FINITE
  // The last accepted state and its time (where a run that failed or stopped ended).
  const VecX<double>& state() const { return y_; }
  double time() const { return t_now_; }

 private:
  const Model& model_;
  const ModelParts parts_;  // the model's parts, asked for once
  const std::vector<double>& p_;
  const IntegrationOptions& opt_;
  const Dop853Settings& settings_;
  RunRecord& record_;
  double base_rtol_, rtol_;  // the run's rtol (times the settings' scale), and as tightened
  std::vector<double> atol_;  // the run's atol times the settings' scale
  std::vector<UnitNormGroup> unit_norm_;  // the groups kept at norm 1 (with drift control)
  double tol_factor_ = 1.0;  // tighten()
  int n_;
  WorkspaceLease ws_;  // from the model's pool (no allocation once sized)
  std::optional<DenseEventSearch> search_;  // with events
  bool nonfinite_ = false;
  double t_now_ = 0.0;
  std::string off_domain_;  // why the last rejected attempt left the model's domain
  int stiff_ = 0, non_stiff_ = 0;  // Hairer's counters (turned_stiff)
  MatX<double> K_;
  VecX<double> y_, ynew_, tmp_, corr_;
  VecX<double> y_stop_;  // the state at a terminal event
  MatX<double> F_;
};

}  // namespace

// ---- method "dop853" of integrate() (integrator.hpp) ----

void check_dop853_supports(const Model& model, const IntegrationOptions& opt) {
  auto refuse = [](const std::string& what) {
    throw InputError("method='dop853' does not support " + what + ": use method='adams' (or 'auto')");
  };
  if (!opt.sensitivities.empty()) refuse("sensitivities");
  if (opt.dense_output) refuse("dense_output");
  if (model.stiff()) refuse("stiff models");
}

std::vector<double> run_dop853(const Model& model, const std::vector<double>& params, double t0, double tf,
                               const std::vector<double>& y0, const IntegrationOptions& opt, RunRecord& record,
                               EventValues& events, const Dop853Settings& settings) {
  Dop853 rk(model, params, opt, settings, record, events);
  SimulationOutput& out = record.output();
  out.method = "dop853";
  double t_last = tf;
  try {
    rk.run(t0, tf, y0);
    t_last = rk.time();
  } catch (const SolverError& e) {
    t_last = e.t;
    if (rk.frame_singular_)
      record.failed(0, "FRAME_SINGULAR", "Integration stopped at t = " + format_number(e.t) + ": " + e.what());
    else
      record.failed(-1, rk.flag_name_.empty() ? "DOP853_FAILURE" : rk.flag_name_,
                    "Integration failed at t = " + format_number(e.t) + ": " + e.what());
  } catch (const ModelError& e) {  // the model undefined at an accepted state: a failure, as with CVODE
    t_last = rk.time();
    record.failed(-1, "DOP853_FAILURE", "Integration failed at t = " + format_number(t_last) +
                                            ": the model could not be evaluated: " + e.what());
  }
  out.stats.n_steps = rk.count_.n_steps;
  out.stats.n_rhs = rk.count_.n_rhs;
  out.stats.n_err_test_fails = rk.count_.n_rejected;
  out.stats.n_proj = rk.count_.n_projections;
  out.stats.last_order = 8;
  const VecX<double>& y = rk.state();
  record.finish(t_last, y.data());
  if (rk.handed_over_) return out.y_last;
  return {};
}

}  // namespace nonholo
