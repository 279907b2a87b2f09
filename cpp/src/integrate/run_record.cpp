#include "nonholo/run_record.hpp"

#include "nonholo/format.hpp"

namespace nonholo {

RunRecord::RunRecord(SimulationOutput& out, int n_states, double t0, double tf, const std::vector<double>& t_eval,
                     const std::vector<EventSpec>& events, const IntegrationOptions& opt,
                     const InterruptCheck& interrupted)
    : out_(out), n_(n_states), dir_(tf >= t0 ? 1.0 : -1.0), tf_(tf), t_eval_(t_eval), events_(events),
      event_counts_(events.size(), 0), opt_(opt), interrupted_(interrupted), start_(Clock::now()) {
  out_.n_states = n_states;
  out_.t_events.resize(events.size());
  out_.y_events.resize(events.size());
  out_.t_event_sensitivities.resize(events.size());
  out_.y_event_sensitivities.resize(events.size());
  out_.t.reserve(t_eval.size());  // the output's size when given
  out_.y.reserve(t_eval.size() * static_cast<std::size_t>(n_states));
}

bool RunRecord::event(std::size_t i, double t, const double* y) {
  out_.t_events[i].push_back(t);
  out_.y_events[i].insert(out_.y_events[i].end(), y, y + n_);
  if (sens_) sens_->record_event(static_cast<int>(i), t, y, out_.t_event_sensitivities[i], out_.y_event_sensitivities[i]);
  const EventSpec& ev = events_[i];
  return ev.terminal > 0 && ++event_counts_[i] >= ev.terminal;
}

bool RunRecord::within_limits(double t, const std::string& hint, const std::string& diagnosis) {
  last_check_ = Clock::now();
  if (opt_.max_wall_time > 0 && elapsed() > opt_.max_wall_time) {
    failed(0, "WALL_TIME_EXCEEDED", "Integration stopped at t = " + format_number(t) + " after max_wall_time = " +
                                        format_number(opt_.max_wall_time) + " s (raise max_wall_time or loosen rtol" +
                                        hint + ")" + diagnosis);
    return false;
  }
  if (interrupted_ && interrupted_()) {
    failed(0, "INTERRUPTED", "Integration interrupted at t = " + format_number(t));
    out_.interrupted = true;
    return false;
  }
  return true;
}

void RunRecord::reached_end() {
  out_.status = 0;
  out_.message = "The solver successfully reached the end of the integration interval.";
}

void RunRecord::stopped_by_event() {
  out_.status = 1;
  out_.message = "A termination event occurred.";
}

void RunRecord::failed(int flag, const std::string& flag_name, const std::string& message) {
  out_.status = -1;
  out_.flag = flag;
  out_.flag_name = flag_name;
  out_.message = message;
}

void RunRecord::too_much_work(double t, const std::string& what, const std::string& advice,
                              const std::string& diagnosis) {
  failed(kTooMuchWork, "CV_TOO_MUCH_WORK",
         "Integration stopped at t = " + format_number(t) + " after max_steps = " + std::to_string(opt_.max_steps) + " " +
             what + " (CV_TOO_MUCH_WORK; " + advice + ")" + diagnosis);
}

void RunRecord::finish(double t, const double* y) {
  out_.t_last = t;
  out_.y_last.assign(y, y + n_);
  out_.stats.cpu_time = cpu_elapsed();
}

}  // namespace nonholo
