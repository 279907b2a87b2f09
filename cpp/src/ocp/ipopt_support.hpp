// What the optimal control NLPs (collocation_nlp.cpp, interval_nlp.cpp) share: IPOPT set up with
// the caller's options, run on a TNLP, and its status in words.
#pragma once

#include <string>
#include <vector>

#include <IpIpoptApplication.hpp>
#include <IpTNLP.hpp>

#include "nonholo/ocp/collocation_nlp.hpp"

namespace nonholo {

// IPOPT's status as its own message.
std::string ipopt_status_message(Ipopt::SolverReturn status);

// Runs IPOPT on `nlp` with `options` (InputError for an invalid one, before any iteration), fills
// the iterations and the time in IPOPT; when IPOPT stops before finalize_solution, success is false
// and x is `x0`. The NLP's finalize_solution fills the rest of `result`.
void run_ipopt(const Ipopt::SmartPtr<Ipopt::TNLP>& nlp, const CollocationOptions& options,
               const std::vector<double>& x0, CollocationResult& result);

}  // namespace nonholo
