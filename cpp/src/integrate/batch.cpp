// Batches of runs on a pool of threads (integrate_many, behind simulate_many), and the result of
// a run that threw before or outside CVODE's steps (failed_output).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "nonholo/errors.hpp"
#include "nonholo/format.hpp"
#include "nonholo/integrator.hpp"

namespace nonholo {

SimulationOutput failed_output(const std::exception_ptr& error, double t0, int n_states) {
  SimulationOutput out;
  out.n_states = n_states;
  out.status = -1;
  out.t_last = t0;
  try {
    std::rethrow_exception(error);
  } catch (const SolverError& e) {
    out.t_last = e.t;
    out.flag_name = "SOLVER_ERROR";
    out.message = e.what();
  } catch (const ModelError& e) {
    out.flag_name = "MODEL_ERROR";
    out.message = e.what();
  } catch (const InputError& e) {
    out.flag_name = "INPUT_ERROR";
    out.message = e.what();
  } catch (const std::exception& e) {
    out.flag_name = "ERROR";
    out.message = e.what();
  }
  out.message = "Integration failed at t = " + format_number(out.t_last) + ": " + out.message;
  return out;
}

std::vector<SimulationOutput> integrate_many(const Model& model, const std::vector<double>& params, double t0,
                                             double tf, const std::vector<double>& y0s, int n_runs,
                                             const std::vector<double>& t_eval, const std::vector<EventSpec>& events,
                                             const IntegrationOptions& options, int threads,
                                             const InterruptCheck& interrupted) {
  const int ns = model.n_states(), np = model.n_params();
  if (n_runs < 0) throw InputError("n_runs must be non-negative");
  if (static_cast<long>(y0s.size()) != static_cast<long>(n_runs) * ns)
    throw InputError("Y0 must have shape (n_runs, " + std::to_string(ns) + ")");
  if (static_cast<long>(params.size()) != static_cast<long>(n_runs) * np)
    throw InputError("params must have shape (n_runs, " + std::to_string(np) + ")");
  for (const auto& ev : events)
    if (ev.callback) throw InputError("simulate_many takes symbolic events only (Python callables need the GIL)");

  std::vector<SimulationOutput> results(n_runs);
  std::vector<std::exception_ptr> errors(n_runs);
  std::atomic<int> next{0};
  int done = 0;
  std::mutex mutex;
  std::condition_variable finished;
  std::atomic<bool> cancel{false};
  InterruptCheck cancelled = [&cancel] { return cancel.load(); };

  auto worker = [&] {
    for (int i = next++; i < n_runs; i = next++) {
      if (cancel.load()) {
        results[i].interrupted = true;
      } else {
        try {
          std::vector<double> p(params.begin() + long(i) * np, params.begin() + long(i + 1) * np);
          std::vector<double> y0(y0s.begin() + long(i) * ns, y0s.begin() + long(i + 1) * ns);
          results[i] = integrate(model, p, t0, tf, y0, t_eval, events, options, cancelled);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      }
      // Wake the watching thread only for the last run: on a machine with as many workers as
      // cores, a wake-up per run would preempt a worker thousands of times per second.
      bool last;
      {
        std::lock_guard<std::mutex> lock(mutex);
        last = ++done == n_runs;
      }
      if (last) finished.notify_one();
    }
  };

  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::max(1, std::min(threads, n_runs));
  std::vector<std::thread> pool;
  for (int k = 0; k < threads; ++k) pool.emplace_back(worker);
  // The calling thread watches for an interrupt (e.g. Ctrl-C) while the workers run.
  {
    std::unique_lock<std::mutex> lock(mutex);
    while (done < n_runs) {
      finished.wait_for(lock, std::chrono::milliseconds(50));
      if (done < n_runs && interrupted && !cancel.load()) {
        lock.unlock();
        if (interrupted()) cancel = true;
        lock.lock();
      }
    }
  }
  for (auto& th : pool) th.join();
  // A run that threw (unusable data at its start, a setup failure) is a failed result of its
  // own: the batch keeps every other run.
  for (int i = 0; i < n_runs; ++i)
    if (errors[i]) results[i] = failed_output(errors[i], t0, ns);
  return results;
}

}  // namespace nonholo
