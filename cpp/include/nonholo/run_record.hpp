// What every run loop shares, whichever method steps (integrate/integration.cpp: CVODE's BDF and
// Adams; explicit_rk.cpp: DOP853): the samples (at t_eval from the stepper's interpolant, or at
// every step), the events' occurrences and terminal counts (their roots found by CVODE, or on a
// one-step method's dense output by dense_events.hpp), the checks of cancellation (Ctrl-C, the
// InterruptCheck) and of max_wall_time, and the report of how the run ended (status, flag name,
// message, t_last, y_last) in the run's SimulationOutput.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "nonholo/integrator.hpp"
#include "nonholo/sensitivity.hpp"
#include "nonholo/thread_clock.hpp"

namespace nonholo {

class RunRecord {
 public:
  using Clock = std::chrono::steady_clock;

  RunRecord(SimulationOutput& out, int n_states, double t0, double tf, const std::vector<double>& t_eval,
            const std::vector<EventSpec>& events, const IntegrationOptions& opt, const InterruptCheck& interrupted);

  SimulationOutput& output() { return out_; }
  double direction() const { return dir_; }
  double t_end() const { return tf_; }
  bool before_or_at(double a, double b) const { return dir_ > 0 ? a <= b : a >= b; }
  // Without t_eval, a sample at t0 and one after every step.
  bool every_step() const { return t_eval_.empty(); }
  // The samples carry the forward sensitivities of a run that has them (CVODES).
  void attach_sensitivities(SensitivityRun* sensitivities) { sens_ = sensitivities; }

  void record(double t, const double* y) {
    out_.t.push_back(t);
    out_.y.insert(out_.y.end(), y, y + n_);
    if (sens_) sens_->record(t, y, out_.sensitivities);
  }
  // The end (t, y) of a step: kept in the trail of options.step_trail, every stride-th one,
  // the stride doubling (and every other one kept dropped) when 2 step_trail are kept.
  void step_end(double t, const double* y) {
    if (opt_.step_trail <= 0 || ++trail_count_ % trail_stride_ != 0) return;
    out_.trail_t.push_back(t);
    out_.trail_y.insert(out_.trail_y.end(), y, y + n_);
    if (static_cast<int>(out_.trail_t.size()) < 2 * opt_.step_trail) return;
    std::size_t kept = 0;
    for (std::size_t i = 1; i < out_.trail_t.size(); i += 2, ++kept) {
      out_.trail_t[kept] = out_.trail_t[i];
      std::copy_n(out_.trail_y.begin() + static_cast<std::ptrdiff_t>(i * n_), n_,
                  out_.trail_y.begin() + static_cast<std::ptrdiff_t>(kept * n_));
    }
    out_.trail_t.resize(kept);
    out_.trail_y.resize(kept * n_);
    trail_stride_ *= 2;
  }
  // The samples of t_eval before or at t (in the direction of integration) not yet emitted, each
  // the state at(te) returns: the stepper's interpolant on its last step, or its state at te = t.
  template <class At>
  void emit_up_to(double t, At&& at) {
    while (next_eval_ < t_eval_.size() && before_or_at(t_eval_[next_eval_], t)) {
      const double te = t_eval_[next_eval_++];
      record(te, at(te));
    }
  }
  // True when a sample of t_eval lies before or at t.
  bool sample_due(double t) const { return next_eval_ < t_eval_.size() && before_or_at(t_eval_[next_eval_], t); }

  // An occurrence of event i at (t, y), recorded: true when it is the event's terminal one (its
  // terminal-th occurrence), which ends the run.
  bool event(std::size_t i, double t, const double* y);

  // The limits of a run, checked every kLimitCheckSteps steps: false, with the report written,
  // when max_wall_time has passed (a failure; `hint` is added to the advice, `diagnosis` to the
  // message) or the run was cancelled (flag INTERRUPTED, interrupted set).
  static constexpr long kLimitCheckSteps = 64;
  bool within_limits(double t, const std::string& hint = "", const std::string& diagnosis = "");
  // True when kLimitCheckSeconds have passed since the limits were last checked: steps slowed by the
  // events (a Python event that takes 50 ms, called dozens of times in each DOP853 step's root search)
  // overran an outside probe's max_wall_time of 1 s to 23.7 s between the checks every 64 steps.
  static constexpr double kLimitCheckSeconds = 0.02;
  bool limits_due() const {
    return std::chrono::duration<double>(Clock::now() - last_check_).count() > kLimitCheckSeconds;
  }
  // The run's clocks, started when the stepping starts: the wall clock (max_wall_time) and the
  // thread's CPU time (stats.cpu_time, thread_clock.hpp).
  void start_clock() {
    start_ = Clock::now();
    cpu_start_ = thread_cpu_seconds();
  }
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  double cpu_elapsed() const { return thread_cpu_seconds() - cpu_start_; }

  // How the run ended.
  void reached_end();
  void stopped_by_event();
  // status -1 with CVODE's flag (or 0 for a failure of ours), its name and the message
  void failed(int flag, const std::string& flag_name, const std::string& message);
  // max_steps spent, whichever method ran: CVODE's flag CV_TOO_MUCH_WORK (kTooMuchWork), `what`
  // saying of what ("steps", "rejected attempts"), `advice` what to do, `diagnosis` appended.
  static constexpr int kTooMuchWork = -1;
  void too_much_work(double t, const std::string& what, const std::string& advice, const std::string& diagnosis);
  // The time and the state where the run ended (reached, stopped or failed), and its CPU time.
  void finish(double t, const double* y);

 private:
  SimulationOutput& out_;
  int n_;
  double dir_, tf_;
  const std::vector<double>& t_eval_;
  std::size_t next_eval_ = 0;
  const std::vector<EventSpec>& events_;
  std::vector<int> event_counts_;
  const IntegrationOptions& opt_;
  const InterruptCheck& interrupted_;
  SensitivityRun* sens_ = nullptr;
  Clock::time_point start_, last_check_ = Clock::now();
  double cpu_start_ = 0.0;
  long trail_count_ = 0, trail_stride_ = 1;
};

}  // namespace nonholo
