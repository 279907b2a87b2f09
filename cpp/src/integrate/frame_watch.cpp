// The frame watch during a CVODE run: a model in quasi-velocities checks its frame after every
// step (FrameWatcher::frame_check, models/frame_watch.cpp) and the run re-splits and restarts, or stops
// at a singular frame.
#include <algorithm>

#include "integration.hpp"
#include "nonholo/errors.hpp"
#include "nonholo/format.hpp"

namespace nonholo::cvode {

bool Integration::watch_frame(double t, bool at_start) {
  double* y = N_VGetArrayPointer(y_.get());
  const double* p = problem_.params.data();
  FrameCheck verdict;
  try {
    verdict = problem_.parts.frame_watch->frame_check(t, y, p, *problem_.ws, at_start);
    if (verdict.action == FrameCheck::kNone) return true;
    if (verdict.action == FrameCheck::kResplit && !sens_) {
      resplit_state_.assign(y, y + n_);  // mapped to the new frame; y stays in the old one for the outputs
      std::vector<int> solved = problem_.parts.frame_watch->resplit(t, resplit_state_.data(), p, *problem_.ws);
      if (!at_start) {  // the step as taken, in the old frame
        if (opt_.dense_output) record_dense_step();
        emit_t_eval_up_to(t, y);
        if (t_eval_.empty()) record(t, y);
      }
      std::copy(resplit_state_.begin(), resplit_state_.end(), y);
      out_.frame_switch_solved.push_back(std::move(solved));
      out_.frame_switch_t.push_back(t);
      collect_stats();
      ++out_.n_restarts;
      start(t, method_, nullptr);
      return true;
    }
  } catch (const ModelError& e) {  // no regular split at y (the constraints lost rank)
    verdict.action = FrameCheck::kSingular;
    verdict.message = std::string("no frame can be chosen here: ") + e.what();
  }
  std::string why = verdict.message;
  if (verdict.action == FrameCheck::kResplit && sens_)
    why = "the frame of the state must be re-chosen at t = " + format_number(t) + " (growth " +
          format_number(verdict.measure) + "), which the forward sensitivities cannot follow: run them in the "
          "coordinates (velocities='coordinates' for a reduced model, system.nonholonomic() or "
          "system.vakonomic() for the Hamel and frame-vakonomic models)";
  if (verdict.action == FrameCheck::kSingular || sens_) {
    fail(0, t);
    out_.flag_name = "FRAME_SINGULAR";
    out_.message = "Integration stopped at t = " + format_number(t) + ": " + why;
  }
  return false;
}

}  // namespace nonholo::cvode
