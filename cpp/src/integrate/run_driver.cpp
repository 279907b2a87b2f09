#include "nonholo/run_driver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "nonholo/errors.hpp"
#include "nonholo/format.hpp"
#include "nonholo/step_floor.hpp"

namespace nonholo {

RunDriver::RunDriver(const Model& model, const std::vector<double>& params, const IntegrationOptions& opt,
                     RunRecord& record, EventValues& events)
    : model_(model), parts_(model.parts()), params_(params), opt_(opt), record_(record), events_(events),
      n_(model.n_states()), y_stop_(model.n_states()) {
  if (opt.project) groups_ = opt.unit_norm;
  if (opt.project && (parts_.constraints || !groups_.empty()))
    drift_.emplace(parts_.constraints, groups_, params, n_);
  if (events.size() > 0) {
    bound_.emplace(events, opt.rtol);
    if (bound_->empty()) bound_.reset();
  }
}

void RunDriver::end(Stepper& s, double t, const double* y) {
  SimulationOutput& out = record_.output();
  s.add_stats(out.stats);
  out.stats.n_proj += projections_;
  projections_ = 0;
  if (y) record_.finish(t, y);
}

bool RunDriver::watch_frame(Stepper& s, double t, double* y, bool at_start) {
  FrameCheck verdict;
  bool follows = true;
  try {
    verdict = parts_.frame_watch->frame_check(t, y, params_.data(), s.workspace(), at_start);
    if (verdict.action == FrameCheck::kNone) return true;
    if (verdict.action == FrameCheck::kResplit) {
      // the outputs at t were emitted in the old frame; from here on the new one
      std::vector<int> solved = parts_.frame_watch->resplit(t, y, params_.data(), s.workspace());
      SimulationOutput& out = record_.output();
      out.frame_switch_solved.push_back(std::move(solved));
      out.frame_switch_t.push_back(t);
      follows = s.resplit(t, at_start);
      if (follows) return true;
    }
  } catch (const ModelError& e) {  // no regular split at y (the constraints lost rank)
    verdict.action = FrameCheck::kSingular;
    verdict.message = std::string("no frame can be chosen here: ") + e.what();
  }
  std::string why = verdict.message;
  if (!follows)
    why = "the frame of the state must be re-chosen at t = " + format_number(t) + " (growth " +
          format_number(verdict.measure) + "), which the forward sensitivities cannot follow: run them in the "
          "coordinates (velocities='coordinates' for a reduced model, system.nonholonomic() or "
          "system.vakonomic() for the Hamel and frame-vakonomic models)";
  record_.failed(0, "FRAME_SINGULAR", "Integration stopped at t = " + format_number(t) + ": " + why);
  return false;
}

bool RunDriver::run(Stepper& s, double t, double* y, bool fresh) {
  // the samples at the start, of the state as given (before a new frame or a projection), once the
  // stepper has begun (a CVODES run records its sensitivities with them)
  if (fresh) {
    y_start_.assign(y, y + n_);
    t_first_ = t;
  }
  auto record_start = [&]() {
    if (!fresh) return;
    record_.emit_up_to(t, [&](double) { return static_cast<const double*>(y_start_.data()); });
    if (record_.every_step()) record_.record(t, y_start_.data());
  };
  const bool watching = parts_.frame_watch != nullptr;
  try {
    if (watching && !watch_frame(s, t, y, true)) {
      record_start();
      end(s, t, y);
      return false;
    }
    if (fresh && drift_ && s.drift_control()) {  // y0 is checked to the tolerance: a no-op but for unit-norm groups
      const DriftControl::Drift d = drift_->check(t, y, s.drift_rtol(), s.workspace(), s.drift_unit_norm());
      drift_->correct(t, y, d, s.workspace());
      if (d.visible()) ++projections_;
    }
  } catch (const ModelError& e) {
    record_start();
    record_.failed(-1, s.failure_name(), "Integration failed at t = " + format_number(t) +
                                             ": the model could not be evaluated: " + e.what());
    end(s, t, y);
    return false;
  }
  s.begin(t, y);
  record_start();
  y = s.state();
  search_.reset();
  if (events_.size() > 0 && !s.finds_roots()) search_.emplace(events_, s.workspace(), n_, record_.direction());
  auto interpolant = [this, &s](double te, double* out) {
    const double* v = s.at(te);
    if (v != out) std::copy(v, v + n_, out);
  };
  long tiny_steps = 0;
  try {
    if (search_) search_->start(t, y);
    if (bound_ && fresh) {
      bound_->start(t, y, s.workspace());
      // a first step on which no event changes sign or turns (event_step_bound.hpp), unless the caller set it
      if (!(opt_.first_step > 0)) s.bound_step(first_step_bound(t, y, *bound_, s.workspace()));
    } else if (bound_) {  // a stepper taking the run over: the bound after the last stepper's last step
      s.bound_step(bound_->after_step(t, y, last_h_, s.workspace()));
    }
    for (;;) {
      const double t_before = t;
      const StepResult r = s.step();
      t = s.time();
      y = s.state();
      if (r.failed) {
        const StepFailure& f = s.failure();
        if (!f.too_much_work_of.empty())
          record_.too_much_work(t, f.too_much_work_of, s.too_much_work_advice(), s.diagnosis());
        else
          record_.failed(f.flag, f.name, f.message);
        break;
      }
      if (++steps_ == opt_.max_steps / 2) t_half_ = t;
      const double h = s.last_step();
      last_h_ = h;
      const bool inside = !r.root && !r.end;
      // 1. events
      bool stop = false;
      double t_stop = t;
      const double* y_stop = y;
      if (r.root) {
        const std::vector<int>& roots = s.roots();
        for (std::size_t i = 0; i < roots.size(); ++i)
          if (roots[i] != 0) stop = record_.event(i, t, y) || stop;
      } else if (search_ || r.events_undefined) {
        auto on_root = [&](double t_root, const double* y_root, const std::vector<std::size_t>& which) {
          bool terminal = false;
          for (std::size_t i : which) terminal = record_.event(i, t_root, y_root) || terminal;
          if (terminal) {
            t_stop = t_root;
            std::copy(y_root, y_root + n_, y_stop_.begin());
            y_stop = y_stop_.data();
          }
          return terminal;
        };
        if (r.events_undefined) {  // CVODE stepped past where an event is defined: the step searched here,
          step_search_.emplace(events_, s.workspace(), n_, record_.direction());  // in kUndefinedStepParts parts
          step_search_->start(t_before, s.at(t_before));  // (a long step: several roots inside)
          for (int k = 1; k < kUndefinedStepParts && !stop; ++k) {
            const double t_k = t_before + (t - t_before) * k / kUndefinedStepParts;
            const double* y_k = s.at(t_k);
            y_part_.assign(y_k, y_k + n_);
            stop = step_search_->step(t_k, y_part_.data(), interpolant, on_root);
          }
        }
        if (!stop) stop = (r.events_undefined ? *step_search_ : *search_).step(t, y, interpolant, on_root);
      }
      if (stop) {
        if (opt_.dense_output) s.record_dense(record_.output().dense);  // the step the stop is in
        record_.emit_up_to(t_stop, [&](double te) { return te == t_stop ? y_stop : s.at(te); });
        if (record_.every_step()) record_.record(t_stop, y_stop);
        record_.stopped_by_event();
        end(s, t_stop, y_stop);
        return false;
      }
      // 2. method control, and drift control after every step but one that ends at a root the
      // stepper found (its state is the event's)
      const bool handover = inside && s.hands_over();
      bool restart = inside && s.wants_restart();
      bool moved = false;
      if (!r.root && !restart && !handover && drift_ && s.drift_control()) {
        const DriftControl::Drift d = drift_->check(t, y, s.drift_rtol(), s.workspace(), s.drift_unit_norm());
        if (d.visible() || d.rescale) {
          const StateMove how = s.how_to_move();
          if (how == StateMove::kInPlace) {
            if (record_.sample_due(t) || opt_.dense_output) s.keep_interpolant();
            drift_->correct(t, y, d, s.workspace());
            if (d.visible()) ++projections_;
            s.moved(t, d.visible());
            moved = d.visible();
          } else if (how == StateMove::kRestart && d.visible() && !r.end) {
            drift_->correct(t, y, d, s.workspace());
            restart = true;
          }
        }
      }
      // 3. the outputs of the step
      if (opt_.dense_output) s.record_dense(record_.output().dense);
      if (record_.sample_due(t)) record_.emit_up_to(t, [&](double te) { return s.at(te); });
      // a root the stepper found is a sample of the events only, unless it is the end: an event
      // whose root is tf itself (t - tf) left the run without its final state
      if ((!r.root || r.end) && record_.every_step()) record_.record(t, y);
      record_.step_end(t, y);
      if (handover) {
        end(s, t, nullptr);
        return true;
      }
      // 4. a fresh start, or the frame watch
      if (restart) {
        s.restart(t);
      } else if (watching && inside) {
        const std::size_t switches = record_.output().frame_switch_t.size();
        if (!watch_frame(s, t, y, false)) break;
        moved = moved || record_.output().frame_switch_t.size() != switches;
      }
      y = s.state();
      if (search_ && moved) search_->start(t, y);
      // 5. the next step within the events' time scale
      if (bound_ && !r.end) s.bound_step(bound_->after_step(t, y, h, s.workspace()));
      // 6. the end and the limits
      if (r.end) {
        record_.reached_end();
        break;
      }
      if (steps_ >= opt_.max_steps) {
        const std::string creep = creeping(t);
        record_.too_much_work(t, "steps", creep.empty() ? s.too_much_work_advice() : creep, s.diagnosis());
        break;
      }
      // A step size collapsed to round-off relative to t means the stepper is creeping towards a
      // point where the model is undefined or singular (e.g. a non-finite right-hand side beyond
      // it): stop now with the reason instead of spending the whole max_steps budget.
      if (std::abs(h) <= collapsed_step(t, t_first_)) {
        if (++tiny_steps >= 100) {
          record_.failed(RunRecord::kTooMuchWork, "STEP_SIZE_COLLAPSED",
                         "Integration stopped at t = " + format_number(t) + ": the step size collapsed to " +
                             format_number(h) + " over 100 steps (the solution blows up, or the model is singular or "
                             "undefined just ahead: check the state there, the metric, the constraints and the forces)" +
                             s.diagnosis());
          break;
        }
      } else {
        tiny_steps = 0;
      }
      if ((steps_ % RunRecord::kLimitCheckSteps == 0 || record_.limits_due()) &&
          !record_.within_limits(t, s.limit_hint(), s.diagnosis()))
        break;
    }
  } catch (const EventUndefined& e) {  // an event undefined past t_ok inside the last step: its outputs up to t_ok
    record_.emit_up_to(e.t_ok, [&](double te) { return te == e.t_ok ? e.y_ok.data() : s.at(te); });
    if (record_.every_step()) record_.record(e.t_ok, e.y_ok.data());
    record_.failed(-1, s.failure_name(), "Integration failed at t = " + format_number(e.t_ok) +
                                             ": the model could not be evaluated beyond it: " + e.what());
    end(s, e.t_ok, e.y_ok.data());
    return false;
  } catch (const ModelError& e) {  // the model undefined at an accepted state, between steps
    t = s.time();
    record_.failed(-1, s.failure_name(), "Integration failed at t = " + format_number(t) +
                                             ": the model could not be evaluated: " + e.what());
  }
  end(s, s.time(), s.state());
  return false;
}

// A run creeps where its steps shrink towards a point it cannot pass (a singularity of the model or
// of its coordinates just ahead: Euler angles at a zero nutation, where the velocities grow like 1 /
// distance): the second half of its max_steps advanced t more than 10 times less than the first, and
// at that pace the end is more than 1000 times the budget away. An outside probe's body in ZXZ angles
// spent 500,000 steps on t < 1e-4 and was told to raise max_steps. Another's Chaplygin ball in ZXZ
// angles passes 3e-6 from the singular nutation: its right-hand side, Christoffel terms of 1 / b^3
// that cancel, is 0.6 off (at b = 3e-6, relative inputs moved by 1e-15) and holds every method's steps
// near 1e-10 (DOP853 at a tenth of rtol 1e-8: 2,000,000 steps in 4.4e-6 of t); it passes, slowly, so
// the message does not say it cannot.
std::string RunDriver::creeping(double t) const {
  if (opt_.max_steps < 1000) return "";
  const double first = std::abs(t_half_ - t_first_), second = std::abs(t - t_half_);
  const double left = std::abs(record_.t_end() - t);
  if (!(10.0 * second < first) || !(1000.0 * second < left)) return "";
  return "the steps shrink: the first " + std::to_string(opt_.max_steps / 2) + " advanced t by " +
         format_number(first) + ", the last " + std::to_string(opt_.max_steps - opt_.max_steps / 2) + " by " +
         format_number(second) + ", with " + format_number(left) +
         " to go: at this pace raising max_steps will not help. The solution nears a point just after t = " +
         format_number(t) +
         " where the model or its coordinates may be singular: a velocity growing without bound, or an angle of a "
         "chart at or near its singular value (near it the right-hand side loses its precision, and the steps of "
         "every method shrink with it: use coordinates regular along the motion); check the state there";
}

// The longest first step the events allow from (t, y): from a tenth of the span (the longest first
// step a stepper takes: CVODE's bound in cvHin where the state's rates are negligible), cut where
// the events' samples along y'(t) say (EventStepBound::first_step). A stepper whose own estimate is
// shorter keeps it. One right-hand side.
double RunDriver::first_step_bound(double t, const double* y, EventStepBound& bound, Workspace& ws) const {
  std::vector<double> f(static_cast<std::size_t>(n_));
  model_.rhs(t, y, params_.data(), f.data(), ws);
  for (double& v : f)
    if (!std::isfinite(v)) v = 0.0;
  return bound.first_step(t, y, f.data(), n_, 0.1 * std::abs(record_.t_end() - t), ws);
}

}  // namespace nonholo
