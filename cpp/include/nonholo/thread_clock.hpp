// The CPU time of the calling thread: what a run's stepping costs (stats.cpu_time), whatever else
// the machine runs. A run steps on one thread (simulate_many: one run per thread), so this is its
// own time; the wall clock (steady_clock) stays the measure of max_wall_time. Once it was the wall
// clock too: 4.15 s of "cpu_time" on a loaded machine for a run of 1.65 s of CPU.
#pragma once

#include <ctime>

namespace nonholo {

inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace nonholo
