// The interval NLP (interval_nlp.hpp) as an Ipopt::TNLP: every callback runs tapes in C++.
#include "nonholo/ocp/interval_nlp.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <utility>

#include "ipopt_support.hpp"
#include "taped_nlp.hpp"
#include "nonholo/errors.hpp"

namespace nonholo {

namespace {

void check_function(const TapedFunction& f, int n_in, int n_out, const std::string& what) {
  auto need = [&](bool ok, const std::string& msg) {
    if (!ok) throw InputError("interval problem: " + what + " " + msg);
  };
  need(f.values && f.values->n_inputs() == n_in, "tape takes the wrong number of inputs");
  need(f.jac_rows.size() == f.jac_cols.size(), "Jacobian pattern arrays differ in length");
  need(f.values->n_outputs() == n_out + static_cast<int>(f.jac_rows.size()), "tape has the wrong number of outputs");
  for (std::size_t e = 0; e < f.jac_rows.size(); ++e)
    need(f.jac_rows[e] >= 0 && f.jac_rows[e] < n_out && f.jac_cols[e] >= 0 && f.jac_cols[e] < n_in,
         "Jacobian pattern out of range");
  need(f.hess_rows.size() == f.hess_cols.size(), "Hessian pattern arrays differ in length");
  need(f.hessian && f.hessian->n_inputs() == n_in + n_out, "Hessian tape must take the inputs and the weights");
  need(f.hessian->n_outputs() == static_cast<int>(f.hess_rows.size()), "Hessian tape has the wrong number of outputs");
  for (std::size_t e = 0; e < f.hess_rows.size(); ++e)
    need(f.hess_cols[e] >= 0 && f.hess_cols[e] <= f.hess_rows[e] && f.hess_rows[e] < n_in,
         "Hessian pattern must be lower");
}

}  // namespace

void IntervalProblem::check() const {
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw InputError("interval problem: " + what);
  };
  need(n_z > 0 && n_r >= 0 && n_c >= 0 && n_g >= 0, "sizes must be non-negative, n_z positive");
  need(!dtau.empty(), "at least one interval");
  for (double d : dtau) need(std::isfinite(d) && d > 0, "interval fractions must be positive");
  need(free_time || (std::isfinite(t_final) && t_final > 0), "the fixed duration must be positive");
  check_function(interval, 2 * n_z + 1, 2 * n_r + n_c + 1, "interval");
  check_function(node, n_z, n_r + n_g, "node");
  need(static_cast<int>(first_rows.size()) == n_r && static_cast<int>(last_rows.size()) == n_r,
       "first_rows and last_rows need n_r entries");
  need(static_cast<int>(c_lo.size()) == n_c && static_cast<int>(c_hi.size()) == n_c, "interval bounds need n_c entries");
  need(static_cast<int>(g_lo.size()) == n_g && static_cast<int>(g_hi.size()) == n_g, "node bounds need n_g entries");
  const std::size_t nx = static_cast<std::size_t>(n_variables());
  need(x_lo.size() == nx && x_hi.size() == nx && x0.size() == nx, "variable bounds and guess need n_variables entries");
}

namespace {

using Ipopt::Index;
using Ipopt::Number;

class IntervalNLP : public TapedNLP {
 public:
  IntervalNLP(const IntervalProblem& p, CollocationResult& result, std::function<bool()> interrupted)
      : TapedNLP(result, p.x0, std::move(interrupted)), p_(p) {
    K_ = p.n_intervals();
    N1_ = p.n_nodes();
    n_x_ = p.n_variables();
    n_con_ = p.n_constraints();
    t_index_ = p.free_time ? n_x_ - 1 : -1;
    nf_int_ = 2 * p.n_r + p.n_c + 1;
    nf_node_ = p.n_r + p.n_g;
    w_int_ = nf_int_ + static_cast<int>(p.interval.jac_rows.size());
    w_node_ = nf_node_ + static_cast<int>(p.node.jac_rows.size());
    // the first row of node q's equations, or -1 where they are not imposed
    row_of_node_.assign(N1_, -1);
    int row = 0;
    for (int q = 0; q < N1_; ++q)
      if ((q > 0 || p.first_imposed) && (q < N1_ - 1 || p.last_imposed)) {
        row_of_node_[q] = row;
        row += p.n_r;
      }
    first_c_row_ = row;
    first_g_row_ = row + K_ * p.n_c;
    Fi_.assign(static_cast<std::size_t>(K_) * w_int_, 0.0);
    Fn_.assign(static_cast<std::size_t>(N1_) * w_node_, 0.0);
    build_jacobian();
    build_hessian();
  }

  bool get_bounds_info(Index n, Number* x_l, Number* x_u, Index m, Number* g_l, Number* g_u) override {
    std::copy(p_.x_lo.begin(), p_.x_lo.begin() + n, x_l);
    std::copy(p_.x_hi.begin(), p_.x_hi.begin() + n, x_u);
    std::fill(g_l, g_l + first_c_row_, 0.0);
    std::fill(g_u, g_u + first_c_row_, 0.0);
    for (int k = 0; k < K_; ++k)
      for (int i = 0; i < p_.n_c; ++i) {
        g_l[first_c_row_ + k * p_.n_c + i] = p_.c_lo[i];
        g_u[first_c_row_ + k * p_.n_c + i] = p_.c_hi[i];
      }
    for (int q = 0; q < N1_; ++q)
      for (int i = 0; i < p_.n_g; ++i) {
        g_l[first_g_row_ + q * p_.n_g + i] = p_.g_lo[i];
        g_u[first_g_row_ + q * p_.n_g + i] = p_.g_hi[i];
      }
    (void)m;
    return true;
  }

  bool eval_f(Index, const Number* x, bool, Number& obj) override {
    Timer t(result_);
    if (!update(x)) return false;
    double J = 0.0;
    for (int k = 0; k < K_; ++k) J += Fi(k)[nf_int_ - 1];
    obj = J;
    return std::isfinite(J);
  }

  bool eval_grad_f(Index n, const Number* x, bool, Number* grad) override {
    Timer t(result_);
    if (!update(x)) return false;
    std::fill(grad, grad + n, 0.0);
    const auto& f = p_.interval;
    for (int k = 0; k < K_; ++k)
      for (std::size_t e = 0; e < f.jac_rows.size(); ++e) {
        if (f.jac_rows[e] != nf_int_ - 1) continue;
        const auto [var, factor] = interval_variable(k, f.jac_cols[e]);
        if (var >= 0) grad[var] += factor * Fi(k)[nf_int_ + e];
      }
    return true;
  }

  bool eval_g(Index, const Number* x, bool, Index, Number* g) override {
    Timer t(result_);
    if (!update(x)) return false;
    constraints(g);
    return true;
  }

  bool eval_jac_g(Index, const Number* x, bool, Index, Index nele, Index* iRow, Index* jCol, Number* values) override {
    if (values == nullptr) {
      for (Index e = 0; e < nele; ++e) {
        iRow[e] = jac_.rows()[e];
        jCol[e] = jac_.cols()[e];
      }
      return true;
    }
    Timer t(result_);
    if (!update(x)) return false;
    std::fill(values, values + nele, 0.0);
    for (const Term& term : jac_terms_)
      values[term.entry] += term.factor * (term.of_interval ? Fi(term.index)[nf_int_ + term.source]
                                                            : Fn(term.index)[nf_node_ + term.source]);
    return true;
  }

  bool eval_h(Index, const Number* x, bool, Number sigma, Index, const Number* lambda, bool, Index nele, Index* iRow,
              Index* jCol, Number* values) override {
    if (values == nullptr) {
      for (Index e = 0; e < nele; ++e) {
        iRow[e] = hess_.rows()[e];
        jCol[e] = hess_.cols()[e];
      }
      return true;
    }
    Timer t(result_);
    if (!update(x)) return false;
    std::fill(values, values + nele, 0.0);
    const int n_in = 2 * p_.n_z + 1, nh_int = static_cast<int>(p_.interval.hess_rows.size());
    in_.resize(std::max(n_in + nf_int_, p_.n_z + nf_node_));
    out_.resize(std::max(nh_int, static_cast<int>(p_.node.hess_rows.size())));
    for (int k = 0; k < K_; ++k) {
      interval_inputs(x, k, in_.data());
      double* mu = in_.data() + n_in;
      std::fill(mu, mu + nf_int_, 0.0);
      for (int side = 0; side < 2; ++side) {
        const int r0 = row_of_node_[k + side];
        if (r0 >= 0)
          for (int i = 0; i < p_.n_r; ++i) mu[side * p_.n_r + i] = lambda[r0 + i];
      }
      for (int i = 0; i < p_.n_c; ++i) mu[2 * p_.n_r + i] = lambda[first_c_row_ + k * p_.n_c + i];
      mu[nf_int_ - 1] = sigma;
      if (nh_int > 0) p_.interval.hessian->eval(in_.data(), out_.data(), work_);
      const std::size_t base = static_cast<std::size_t>(k) * nh_int;
      for (int e = 0; e < nh_int; ++e)
        if (hess_int_[base + e].entry >= 0) values[hess_int_[base + e].entry] += hess_int_[base + e].factor * out_[e];
    }
    const int nh_node = static_cast<int>(p_.node.hess_rows.size());
    for (int q = 0; q < N1_ && nh_node > 0; ++q) {
      std::copy(x + q * p_.n_z, x + (q + 1) * p_.n_z, in_.begin());
      double* mu = in_.data() + p_.n_z;
      const int r0 = row_of_node_[q];
      for (int i = 0; i < p_.n_r; ++i) mu[i] = r0 >= 0 ? lambda[r0 + i] : 0.0;
      for (int i = 0; i < p_.n_g; ++i) mu[p_.n_r + i] = lambda[first_g_row_ + q * p_.n_g + i];
      p_.node.hessian->eval(in_.data(), out_.data(), work_);
      for (int e = 0; e < nh_node; ++e) values[hess_node_[static_cast<std::size_t>(q) * nh_node + e]] += out_[e];
    }
    return true;
  }

  void finalize_solution(Ipopt::SolverReturn status, Index n, const Number* x, const Number* z_L, const Number* z_U,
                         Index m, const Number*, const Number* lambda, Number obj_value, const Ipopt::IpoptData* data,
                         Ipopt::IpoptCalculatedQuantities*) override {
    record_solution(status, n, x, z_L, z_U, m, lambda, obj_value, data);
    result_.max_defect = HUGE_VAL;
    if (!update(x)) return;
    std::vector<double> g(m);
    constraints(g.data());
    double worst = 0.0;
    for (int r = 0; r < first_g_row_; ++r) {
      double lo = 0.0, hi = 0.0;
      if (r >= first_c_row_) {
        lo = p_.c_lo[(r - first_c_row_) % p_.n_c];
        hi = p_.c_hi[(r - first_c_row_) % p_.n_c];
      }
      worst = std::max({worst, g[r] - hi, lo - g[r]});
    }
    result_.max_defect = worst;
  }

 private:
  struct Term {
    int entry;
    bool of_interval;
    int index, source;  // interval or node index, Jacobian entry of its tape
    double factor;
  };
  struct HessianEntry {
    int entry;  // -1: the step's row or column with a fixed duration
    double factor;
  };

  double duration(const Number* x) const { return t_index_ >= 0 ? x[t_index_] : p_.t_final; }
  const double* Fi(int k) const { return Fi_.data() + static_cast<std::size_t>(k) * w_int_; }
  const double* Fn(int q) const { return Fn_.data() + static_cast<std::size_t>(q) * w_node_; }

  // The NLP variable of input c of interval k's tape and dvariable/dinput's inverse factor:
  // z_k, z_{k+1} one to one, the step h_k = T dtau_k (-1 with a fixed duration).
  std::pair<int, double> interval_variable(int k, int c) const {
    if (c < 2 * p_.n_z) return {k * p_.n_z + c, 1.0};
    return {t_index_, p_.dtau[k]};
  }

  void interval_inputs(const Number* x, int k, double* in) const {
    std::copy(x + k * p_.n_z, x + (k + 2) * p_.n_z, in);
    in[2 * p_.n_z] = duration(x) * p_.dtau[k];
  }

  bool update(const Number* x) {
    if (!x_.empty() && std::memcmp(x_.data(), x, sizeof(double) * n_x_) == 0) return valid_;
    x_.assign(x, x + n_x_);
    valid_ = true;
    std::vector<double>& in = in_;
    in.resize(std::max(2 * p_.n_z + 1 + nf_int_, p_.n_z + nf_node_));
    for (int k = 0; k < K_; ++k) {
      interval_inputs(x, k, in.data());
      double* out = Fi_.data() + static_cast<std::size_t>(k) * w_int_;
      p_.interval.values->eval(in.data(), out, work_);
      for (int i = 0; i < w_int_; ++i) valid_ = valid_ && std::isfinite(out[i]);
    }
    for (int q = 0; q < N1_; ++q) {
      double* out = Fn_.data() + static_cast<std::size_t>(q) * w_node_;
      p_.node.values->eval(x + q * p_.n_z, out, work_);
      for (int i = 0; i < w_node_; ++i) valid_ = valid_ && std::isfinite(out[i]);
    }
    return valid_;
  }

  void constraints(Number* g) const {
    for (int q = 0; q < N1_; ++q) {
      const int r0 = row_of_node_[q];
      if (r0 < 0) continue;
      for (int i = 0; i < p_.n_r; ++i) {
        double e = Fn(q)[i];
        if (q > 0) e += Fi(q - 1)[p_.n_r + i];
        if (q < K_) e += Fi(q)[i];
        if (q == 0) e += p_.first_rows[i];
        if (q == K_) e += p_.last_rows[i];
        g[r0 + i] = e;
      }
    }
    for (int k = 0; k < K_; ++k)
      for (int i = 0; i < p_.n_c; ++i) g[first_c_row_ + k * p_.n_c + i] = Fi(k)[2 * p_.n_r + i];
    for (int q = 0; q < N1_; ++q)
      for (int i = 0; i < p_.n_g; ++i) g[first_g_row_ + q * p_.n_g + i] = Fn(q)[p_.n_r + i];
  }

  // The constraint row of output o of interval k's tape, -1 for the cost or a node not imposed.
  int interval_row(int k, int o) const {
    if (o < p_.n_r) return row_of_node_[k] < 0 ? -1 : row_of_node_[k] + o;
    if (o < 2 * p_.n_r) return row_of_node_[k + 1] < 0 ? -1 : row_of_node_[k + 1] + o - p_.n_r;
    if (o < 2 * p_.n_r + p_.n_c) return first_c_row_ + k * p_.n_c + o - 2 * p_.n_r;
    return -1;
  }

  int node_row(int q, int o) const {
    if (o < p_.n_r) return row_of_node_[q] < 0 ? -1 : row_of_node_[q] + o;
    return first_g_row_ + q * p_.n_g + o - p_.n_r;
  }

  void build_jacobian() {
    const auto& fi = p_.interval;
    for (int k = 0; k < K_; ++k)
      for (std::size_t e = 0; e < fi.jac_rows.size(); ++e) {
        const int row = interval_row(k, fi.jac_rows[e]);
        const auto [var, factor] = interval_variable(k, fi.jac_cols[e]);
        if (row >= 0 && var >= 0)
          jac_terms_.push_back({jac_.add(row, var), true, k, static_cast<int>(e), factor});
      }
    const auto& fn = p_.node;
    for (int q = 0; q < N1_; ++q)
      for (std::size_t e = 0; e < fn.jac_rows.size(); ++e) {
        const int row = node_row(q, fn.jac_rows[e]);
        if (row >= 0)
          jac_terms_.push_back({jac_.add(row, q * p_.n_z + fn.jac_cols[e]), false, q, static_cast<int>(e), 1.0});
      }
  }

  void build_hessian() {
    const auto& fi = p_.interval;
    const int nh_int = static_cast<int>(fi.hess_rows.size());
    hess_int_.resize(static_cast<std::size_t>(K_) * nh_int);
    for (int k = 0; k < K_; ++k)
      for (int e = 0; e < nh_int; ++e) {
        const auto [vr, fr] = interval_variable(k, fi.hess_rows[e]);
        const auto [vc, fc] = interval_variable(k, fi.hess_cols[e]);
        HessianEntry& h = hess_int_[static_cast<std::size_t>(k) * nh_int + e];
        h = {-1, fr * fc};
        if (vr >= 0 && vc >= 0) h.entry = hess_.add_lower(vr, vc);
      }
    const auto& fn = p_.node;
    const int nh_node = static_cast<int>(fn.hess_rows.size());
    hess_node_.resize(static_cast<std::size_t>(N1_) * nh_node);
    for (int q = 0; q < N1_; ++q)
      for (int e = 0; e < nh_node; ++e)
        hess_node_[static_cast<std::size_t>(q) * nh_node + e] =
            hess_.add_lower(q * p_.n_z + fn.hess_rows[e], q * p_.n_z + fn.hess_cols[e]);
  }

  const IntervalProblem& p_;
  int K_ = 0, N1_ = 0, t_index_ = -1;
  int nf_int_ = 0, nf_node_ = 0, w_int_ = 0, w_node_ = 0, first_c_row_ = 0, first_g_row_ = 0;
  std::vector<int> row_of_node_;
  std::vector<Term> jac_terms_;
  std::vector<HessianEntry> hess_int_;
  std::vector<int> hess_node_;
  std::vector<double> x_, Fi_, Fn_, in_, out_, work_;
  bool valid_ = false;
};

}  // namespace

CollocationResult solve_interval_nlp(const IntervalProblem& problem, const CollocationOptions& options) {
  return solve_taped<IntervalNLP>(problem, options);
}

}  // namespace nonholo
