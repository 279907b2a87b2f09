#include "ipopt_support.hpp"

#include <chrono>

#include <IpSolveStatistics.hpp>

#include "nonholo/errors.hpp"

namespace nonholo {

namespace {

// Sets the caller's IPOPT options; throws InputError naming the first one IPOPT refuses (checked
// against the registered option first, so that IPOPT prints no complaint of its own).
void set_ipopt_options(Ipopt::IpoptApplication& app, const std::vector<IpoptOption>& options) {
  auto list = app.Options();
  auto registered = app.RegOptions();
  for (const IpoptOption& o : options) {
    const std::string where = "ipopt_options['" + o.name + "']";
    Ipopt::SmartPtr<const Ipopt::RegisteredOption> known = registered->GetOption(o.name);
    if (Ipopt::IsNull(known)) throw InputError(where + ": IPOPT has no option '" + o.name + "'");
    bool ok = false;
    switch (known->Type()) {
      case Ipopt::OT_String:
        if (o.kind != IpoptOption::String) throw InputError(where + " must be a string (IPOPT's type of the option)");
        ok = known->IsValidStringSetting(o.text) && list->SetStringValue(o.name, o.text);
        break;
      case Ipopt::OT_Integer:
        if (o.kind != IpoptOption::Integer) throw InputError(where + " must be an integer (IPOPT's type of the option)");
        if (o.integer < -2147483647L || o.integer > 2147483647L) throw InputError(where + " is out of range");
        ok = known->IsValidIntegerSetting(static_cast<Ipopt::Index>(o.integer)) &&
             list->SetIntegerValue(o.name, static_cast<Ipopt::Index>(o.integer));
        break;
      case Ipopt::OT_Number: {
        if (o.kind == IpoptOption::String) throw InputError(where + " must be a number (IPOPT's type of the option)");
        const double value = o.kind == IpoptOption::Integer ? static_cast<double>(o.integer) : o.number;
        ok = known->IsValidNumberSetting(value) && list->SetNumericValue(o.name, value);
        break;
      }
      default:
        throw InputError(where + ": IPOPT's option has an unknown type");
    }
    if (!ok) {
      const std::string value = o.kind == IpoptOption::String    ? "'" + o.text + "'"
                                : o.kind == IpoptOption::Integer ? std::to_string(o.integer)
                                                                 : std::to_string(o.number);
      throw InputError(where + " = " + value + " is not a value IPOPT accepts for this option");
    }
  }
}

// Why IPOPT stopped before it had a point to return (no finalize_solution).
std::string application_status_message(Ipopt::ApplicationReturnStatus s) {
  const std::string code = " (IPOPT application status " + std::to_string(static_cast<int>(s)) + ")";
  switch (s) {
    case Ipopt::Invalid_Option:
      return "IPOPT refused an invalid option, e.g. a linear_solver that is not installed" + code;
    case Ipopt::Not_Enough_Degrees_Of_Freedom: return "the problem has too few degrees of freedom" + code;
    case Ipopt::Invalid_Problem_Definition: return "IPOPT found the problem definition invalid" + code;
    case Ipopt::Invalid_Number_Detected:
      return "an invalid number (NaN or inf) in the problem's functions at the starting point" + code;
    case Ipopt::Insufficient_Memory: return "not enough memory for the NLP" + code;
    case Ipopt::User_Requested_Stop: return "the solve was interrupted" + code;
    default: return "IPOPT stopped before solving" + code;
  }
}

}  // namespace

std::string ipopt_status_message(Ipopt::SolverReturn s) {
  switch (s) {
    case Ipopt::SUCCESS: return "Optimal Solution Found.";
    case Ipopt::MAXITER_EXCEEDED: return "Maximum Number of Iterations Exceeded.";
    case Ipopt::CPUTIME_EXCEEDED: return "Maximum CPU time exceeded.";
    case Ipopt::STOP_AT_TINY_STEP: return "Search Direction is becoming Too Small.";
    case Ipopt::STOP_AT_ACCEPTABLE_POINT: return "Solved To Acceptable Level.";
    case Ipopt::LOCAL_INFEASIBILITY: return "Converged to a point of local infeasibility. Problem may be infeasible.";
    case Ipopt::USER_REQUESTED_STOP: return "Stopping optimization at current point as requested by user.";
    case Ipopt::DIVERGING_ITERATES: return "Iterates diverging; problem might be unbounded.";
    case Ipopt::RESTORATION_FAILURE: return "Restoration Phase Failed.";
    case Ipopt::ERROR_IN_STEP_COMPUTATION: return "Error in step computation (regularization becomes too large?)!";
    case Ipopt::INVALID_NUMBER_DETECTED: return "Invalid number in NLP function or derivative detected.";
    case Ipopt::TOO_FEW_DEGREES_OF_FREEDOM: return "Problem has too few degrees of freedom.";
    case Ipopt::INVALID_OPTION: return "Invalid option encountered.";
    case Ipopt::OUT_OF_MEMORY: return "Not enough memory.";
    default: return "IPOPT failed (internal error).";
  }
}

void run_ipopt(const Ipopt::SmartPtr<Ipopt::TNLP>& nlp, const CollocationOptions& options,
               const std::vector<double>& x0, CollocationResult& result) {
  if (!(options.tol > 0)) throw InputError("tol must be positive");
  if (options.max_iter < 0) throw InputError("max_iter must be non-negative");
  if (options.mu_strategy != "monotone" && options.mu_strategy != "adaptive")
    throw InputError("mu_strategy must be \"monotone\" or \"adaptive\", got \"" + options.mu_strategy + "\"");
  Ipopt::SmartPtr<Ipopt::IpoptApplication> app = IpoptApplicationFactory();
  auto opts = app->Options();
  opts->SetIntegerValue("print_level", options.print_level);
  opts->SetStringValue("sb", "yes");
  opts->SetNumericValue("tol", options.tol);
  opts->SetIntegerValue("max_iter", options.max_iter);
  opts->SetStringValue("hessian_approximation", options.exact_hessian ? "exact" : "limited-memory");
  if (options.max_wall_time > 0) opts->SetNumericValue("max_cpu_time", options.max_wall_time);
  opts->SetStringValue("mu_strategy", options.mu_strategy);
  set_ipopt_options(*app, options.ipopt);
  if (app->Initialize() != Ipopt::Solve_Succeeded) {
    result.message = "IPOPT could not be initialized";
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  Ipopt::ApplicationReturnStatus status = app->OptimizeTNLP(nlp);
  result.time_ipopt = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (Ipopt::IsValid(app->Statistics())) result.iterations = app->Statistics()->IterationCount();
  if (result.x.empty()) {  // IPOPT stopped before finalize_solution
    result.success = false;
    result.status = static_cast<int>(status);
    result.message = application_status_message(status);
    result.x = x0;
  }
}

}  // namespace nonholo
