// What the optimal control NLPs (collocation_nlp.cpp, interval_nlp.cpp) share as an Ipopt::TNLP: the
// sparsity patterns of the Jacobian and the Hessian, the starting point, the result a solve fills
// (IPOPT's point and status, the time in the evaluations) and the Ctrl-C check at every iteration.
#pragma once

#include <limits>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include <IpIpoptData.hpp>
#include <IpTNLP.hpp>

#include "ipopt_support.hpp"
#include "nonholo/ocp/collocation_nlp.hpp"

namespace nonholo {

// Sparse pattern assembled from (row, col) pairs, each pair stored once.
class Pattern {
 public:
  int add(int row, int col) {
    auto [it, fresh] = index_.emplace(std::make_pair(row, col), static_cast<int>(rows_.size()));
    if (fresh) {
      rows_.push_back(row);
      cols_.push_back(col);
    }
    return it->second;
  }
  // An entry of a symmetric matrix, stored in its lower triangle (callers may give either one).
  int add_lower(int row, int col) { return col > row ? add(col, row) : add(row, col); }
  int size() const { return static_cast<int>(rows_.size()); }
  const std::vector<int>& rows() const { return rows_; }
  const std::vector<int>& cols() const { return cols_; }

 private:
  std::map<std::pair<int, int>, int> index_;
  std::vector<int> rows_, cols_;
};

class TapedNLP : public Ipopt::TNLP {
 public:
  using Index = Ipopt::Index;
  using Number = Ipopt::Number;

  TapedNLP(CollocationResult& result, const std::vector<double>& x0, std::function<bool()> interrupted)
      : result_(result), x0_(x0), interrupted_(std::move(interrupted)) {}

  bool get_nlp_info(Index& n, Index& m, Index& nnz_jac_g, Index& nnz_h_lag, IndexStyleEnum& style) override {
    n = n_x_;
    m = n_con_;
    nnz_jac_g = jac_.size();
    nnz_h_lag = hess_.size();
    style = C_STYLE;
    return true;
  }

  // x0, and a warm start's multipliers when IPOPT asks for them (warm_start_init_point = yes) and
  // the caller gave them (set_multipliers); without them such a request fails.
  bool get_starting_point(Index n, bool init_x, Number* x, bool init_z, Number* z_L, Number* z_U, Index m,
                          bool init_lambda, Number* lambda) override {
    if ((init_z && z_lo0_.empty()) || (init_lambda && lambda0_.empty())) return false;
    if (init_x) std::copy(x0_.begin(), x0_.begin() + n, x);
    if (init_z) {
      std::copy(z_lo0_.begin(), z_lo0_.begin() + n, z_L);
      std::copy(z_hi0_.begin(), z_hi0_.begin() + n, z_U);
    }
    if (init_lambda) std::copy(lambda0_.begin(), lambda0_.begin() + m, lambda);
    return true;
  }

  // Called by IPOPT after every iteration: false stops it (USER_REQUESTED_STOP) when the caller's
  // interrupt check fires (Ctrl-C), so that a long solve stops within one iteration.
  // It also keeps the iteration's Hessian regularization (CollocationResult::last_regularization).
  bool intermediate_callback(Ipopt::AlgorithmMode, Index, Number, Number, Number, Number, Number,
                             Number regularization_size, Number, Number, Index, const Ipopt::IpoptData*,
                             Ipopt::IpoptCalculatedQuantities*) override {
    result_.last_regularization = regularization_size;
    if (interrupted_ && interrupted_()) {
      result_.interrupted = true;
      return false;
    }
    return true;
  }

  int nnz_jacobian() const { return jac_.size(); }
  int nnz_hessian() const { return hess_.size(); }

 protected:
  // A warm start's multipliers (sizes checked by the problem): lambda (m), z_L and z_U (n), or all empty.
  void set_multipliers(const std::vector<double>& lambda, const std::vector<double>& z_lo,
                       const std::vector<double>& z_hi) {
    lambda0_ = lambda;
    z_lo0_ = z_lo;
    z_hi0_ = z_hi;
  }

  // IPOPT's point, multipliers, barrier parameter, objective and status into the result
  // (finalize_solution's common part).
  void record_solution(Ipopt::SolverReturn status, Index n, const Number* x, const Number* z_L, const Number* z_U,
                       Index m, const Number* lambda, Number obj_value, const Ipopt::IpoptData* data) {
    result_.x.assign(x, x + n);
    result_.constraint_multipliers.assign(lambda, lambda + m);
    result_.bound_multipliers_lo.assign(z_L, z_L + n);
    result_.bound_multipliers_hi.assign(z_U, z_U + n);
    if (data != nullptr) result_.mu = data->curr_mu();
    // the objective at the point returned, evaluated here: IPOPT's obj_value is 0 where it stopped
    // before evaluating it (max_cpu_time reached at the start, an invalid number at the first point)
    (void)obj_value;
    Number J = std::numeric_limits<double>::quiet_NaN();
    eval_f(n, x, true, J);
    result_.objective = J;
    result_.status = static_cast<int>(status);
    result_.success = status == Ipopt::SUCCESS || status == Ipopt::STOP_AT_ACCEPTABLE_POINT;
    result_.message = ipopt_status_message(status);
  }

  // Adds the evaluation time of the enclosing callback to the result.
  struct Timer {
    using Clock = std::chrono::steady_clock;
    explicit Timer(CollocationResult& r) : r(r), start(Clock::now()) {}
    ~Timer() {
      r.time_evaluations += std::chrono::duration<double>(Clock::now() - start).count();
      ++r.n_evaluations;
    }
    CollocationResult& r;
    Clock::time_point start;
  };

  CollocationResult& result_;
  const std::vector<double>& x0_;
  std::function<bool()> interrupted_;
  int n_x_ = 0, n_con_ = 0;
  Pattern jac_, hess_;
  std::vector<double> lambda0_, z_lo0_, z_hi0_;
};

// Builds the NLP of `problem` (IPOPT owns it through its SmartPtr) and solves it with `options`.
template <class NLP, class Problem>
CollocationResult solve_taped(const Problem& problem, const CollocationOptions& options) {
  problem.check();
  CollocationResult result;
  Ipopt::SmartPtr<TapedNLP> nlp = new NLP(problem, result, options.interrupted);
  result.nnz_jacobian = nlp->nnz_jacobian();
  result.nnz_hessian = options.exact_hessian ? nlp->nnz_hessian() : 0;
  run_ipopt(Ipopt::SmartPtr<Ipopt::TNLP>(Ipopt::GetRawPtr(nlp)), options, problem.x0, result);
  return result;
}

}  // namespace nonholo
