// The collocation NLP (collocation_nlp.hpp) as an Ipopt::TNLP: every callback runs tapes in C++.
#include "nonholo/ocp/collocation_nlp.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <utility>

#include "ipopt_support.hpp"
#include "taped_nlp.hpp"
#include "nonholo/errors.hpp"

namespace nonholo {

void CollocationProblem::check() const {
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw InputError("collocation problem: " + what);
  };
  need(n_y > 0 && n_u >= 0 && n_g >= 0, "sizes must be non-negative, n_y positive");
  need(step == 1 || step == 2, "step must be 1 or 2");
  need(!dtau.empty(), "at least one interval");
  for (double d : dtau) need(std::isfinite(d) && d > 0, "interval fractions must be positive");
  need(!stencils.empty(), "at least one stencil");
  for (const auto& s : stencils) {
    need(s.offsets.size() == s.a.size() && s.a.size() == s.b.size(), "stencil arrays differ in length");
    for (int o : s.offsets) need(o >= 0 && o <= step, "stencil offset out of the interval");
  }
  need(quad_offsets.size() == quad_weights.size(), "quadrature arrays differ in length");
  for (int o : quad_offsets) need(o >= 0 && o <= step, "quadrature offset out of the interval");
  need(free_time || (std::isfinite(t_final) && t_final > 0), "the fixed duration must be positive");
  const int nz = block(), nf = n_outputs();
  need(n_h >= 0, "n_h must be non-negative");
  need(node && node->n_inputs() == nz, "node tape must take the n_y + n_u point variables");
  need(jac_rows.size() == jac_cols.size(), "Jacobian pattern arrays differ in length");
  need(node->n_outputs() == nf + static_cast<int>(jac_rows.size()), "node tape has the wrong number of outputs");
  for (std::size_t e = 0; e < jac_rows.size(); ++e)
    need(jac_rows[e] >= 0 && jac_rows[e] < nf && jac_cols[e] >= 0 && jac_cols[e] < nz, "Jacobian pattern out of range");
  need(hess_rows.size() == hess_cols.size(), "Hessian pattern arrays differ in length");
  need(hessian && hessian->n_inputs() == nz + nf, "hessian tape must take the point variables and the weights");
  need(hessian->n_outputs() == static_cast<int>(hess_rows.size()), "hessian tape has the wrong number of outputs");
  for (std::size_t e = 0; e < hess_rows.size(); ++e)
    need(hess_cols[e] >= 0 && hess_cols[e] <= hess_rows[e] && hess_rows[e] < nz, "Hessian pattern must be lower");
  if (terminal) {
    need(terminal->n_inputs() == n_y, "terminal tape must take the states");
    need(term_hess_rows.size() == term_hess_cols.size(), "terminal Hessian pattern arrays differ in length");
    need(terminal->n_outputs() == 1 + n_y + static_cast<int>(term_hess_rows.size()),
         "terminal tape has the wrong number of outputs");
    for (std::size_t e = 0; e < term_hess_rows.size(); ++e)
      need(term_hess_cols[e] >= 0 && term_hess_cols[e] <= term_hess_rows[e] && term_hess_rows[e] < n_y,
           "terminal Hessian pattern must be lower");
  }
  need(static_cast<int>(g_lo.size()) == n_g && static_cast<int>(g_hi.size()) == n_g, "path bounds need n_g entries");
  need(hol_points.size() == hol_rows.size(), "holonomic point and row arrays differ in length");
  for (std::size_t e = 0; e < hol_points.size(); ++e)
    need(hol_points[e] >= 0 && hol_points[e] < n_points() && hol_rows[e] >= 0 && hol_rows[e] < n_h,
         "holonomic constraint out of range");
  if (n_h > 0) {
    const int nc = nz + n_h;
    need(correction && correction->n_inputs() == nc, "correction tape must take the point variables and gamma");
    need(corr_jac_rows.size() == corr_jac_cols.size(), "correction Jacobian pattern arrays differ in length");
    need(correction->n_outputs() == n_y + static_cast<int>(corr_jac_rows.size()),
         "correction tape has the wrong number of outputs");
    for (std::size_t e = 0; e < corr_jac_rows.size(); ++e)
      need(corr_jac_rows[e] >= 0 && corr_jac_rows[e] < n_y && corr_jac_cols[e] >= 0 && corr_jac_cols[e] < nc,
           "correction Jacobian pattern out of range");
    need(corr_hessian && corr_hessian->n_inputs() == nc + n_y, "correction hessian tape must take (z, gamma, mu)");
    need(corr_hess_rows.size() == corr_hess_cols.size() &&
             corr_hessian->n_outputs() == static_cast<int>(corr_hess_rows.size()),
         "correction hessian tape has the wrong number of outputs");
    for (std::size_t e = 0; e < corr_hess_rows.size(); ++e)
      need(corr_hess_cols[e] >= 0 && corr_hess_cols[e] <= corr_hess_rows[e] && corr_hess_rows[e] < nc,
           "correction Hessian pattern must be lower");
    need(corr_offsets.size() == stencils.size(), "one correction offset per stencil");
    for (int o : corr_offsets) need(o >= 0 && o <= step, "correction offset out of the interval");
  }
  const std::size_t nx = static_cast<std::size_t>(n_variables());
  need(x_lo.size() == nx && x_hi.size() == nx && x0.size() == nx, "variable bounds and guess need n_variables entries");
  const bool warm = !lambda0.empty() || !z_lo0.empty() || !z_hi0.empty();
  need(!warm || (lambda0.size() == static_cast<std::size_t>(n_constraints()) && z_lo0.size() == nx && z_hi0.size() == nx),
       "a warm start's multipliers need n_constraints (lambda) and n_variables (z_lo, z_hi) entries");
  for (double z : z_lo0) need(std::isfinite(z) && z >= 0, "bound multipliers must be finite and non-negative");
  for (double z : z_hi0) need(std::isfinite(z) && z >= 0, "bound multipliers must be finite and non-negative");
  for (double l : lambda0) need(std::isfinite(l), "constraint multipliers must be finite");
}

namespace {

using Ipopt::Index;
using Ipopt::Number;

class CollocationNLP : public TapedNLP {
 public:
  CollocationNLP(const CollocationProblem& p, CollocationResult& result, std::function<bool()> interrupted)
      : TapedNLP(result, p.x0, std::move(interrupted)), p_(p) {
    nz_ = p.block();
    nf_ = p.n_outputs();
    n_points_ = p.n_points();
    n_def_ = p.n_defects();
    n_gamma_base_ = n_points_ * nz_;
    n_slots_ = p.n_h > 0 ? intervals() * static_cast<int>(p.stencils.size()) : 0;
    n_cjac_ = static_cast<int>(p.corr_jac_rows.size());
    n_x_ = p.n_variables();
    n_con_ = p.n_constraints();
    t_index_ = p.free_time ? n_x_ - 1 : -1;
    n_jac_ = static_cast<int>(p.jac_rows.size());
    F_.assign(static_cast<std::size_t>(n_points_) * (nf_ + n_jac_), 0.0);
    C_.assign(static_cast<std::size_t>(n_slots_) * (p.n_y + n_cjac_), 0.0);
    build_jacobian();
    build_hessian();
    set_multipliers(p.lambda0, p.z_lo0, p.z_hi0);
  }

  bool get_bounds_info(Index n, Number* x_l, Number* x_u, Index m, Number* g_l, Number* g_u) override {
    for (Index i = 0; i < n; ++i) {
      x_l[i] = p_.x_lo[i];
      x_u[i] = p_.x_hi[i];
    }
    for (int r = 0; r < n_def_; ++r) g_l[r] = g_u[r] = 0.0;
    for (int q = 0; q < n_points_; ++q)
      for (int i = 0; i < p_.n_g; ++i) {
        g_l[n_def_ + q * p_.n_g + i] = p_.g_lo[i];
        g_u[n_def_ + q * p_.n_g + i] = p_.g_hi[i];
      }
    for (int r = n_def_ + n_points_ * p_.n_g; r < m; ++r) g_l[r] = g_u[r] = 0.0;
    return true;
  }

  bool eval_f(Index, const Number* x, bool, Number& obj) override {
    Timer t(result_);
    if (!update(x)) return false;
    double J = 0.0;
    for (int k = 0; k < intervals(); ++k) {
      const double h = step_size(x, k);
      for (std::size_t j = 0; j < p_.quad_offsets.size(); ++j)
        J += h * p_.quad_weights[j] * F(k * p_.step + p_.quad_offsets[j])[p_.n_y];
    }
    if (p_.terminal) J += phi_[0];
    obj = J;
    return std::isfinite(J);
  }

  bool eval_grad_f(Index n, const Number* x, bool, Number* grad) override {
    Timer t(result_);
    if (!update(x)) return false;
    std::fill(grad, grad + n, 0.0);
    for (int k = 0; k < intervals(); ++k) {
      const double h = step_size(x, k);
      for (std::size_t j = 0; j < p_.quad_offsets.size(); ++j) {
        const int q = k * p_.step + p_.quad_offsets[j];
        const double w = p_.quad_weights[j];
        const double* Fq = F(q);
        for (int e = 0; e < n_jac_; ++e)
          if (p_.jac_rows[e] == p_.n_y) grad[q * nz_ + p_.jac_cols[e]] += h * w * Fq[nf_ + e];
        if (t_index_ >= 0) grad[t_index_] += p_.dtau[k] * w * Fq[p_.n_y];
      }
    }
    if (p_.terminal)
      for (int i = 0; i < p_.n_y; ++i) grad[(n_points_ - 1) * nz_ + i] += phi_[1 + i];
    return true;
  }

  bool eval_g(Index, const Number* x, bool, Index, Number* g) override {
    Timer t(result_);
    if (!update(x)) return false;
    defects(x, g);
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
    for (const Term& term : jac_terms_) {
      double v = term.coef;
      switch (term.kind) {
        case Term::Constant: break;
        case Term::ScaledJacobian: v *= step_size(x, term.interval) * F(term.point)[nf_ + term.source]; break;
        case Term::TimeDerivative: v *= p_.dtau[term.interval] * F(term.point)[term.source]; break;
        case Term::Jacobian: v *= F(term.point)[nf_ + term.source]; break;
        case Term::Correction: v *= step_size(x, term.interval) * C(term.point)[p_.n_y + term.source]; break;
        case Term::CorrectionTime: v *= p_.dtau[term.interval] * C(term.point)[term.source]; break;
      }
      values[term.entry] += v;
    }
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
    // mu_q: the weights of [f, L, g] at point q in the Lagrangian; nu_q: their derivative in T.
    mu_.assign(static_cast<std::size_t>(n_points_) * nf_, 0.0);
    nu_.assign(static_cast<std::size_t>(n_points_) * nf_, 0.0);
    int row = 0;
    for (int k = 0; k < intervals(); ++k) {
      const double h = step_size(x, k), dt = p_.dtau[k];
      for (std::size_t j = 0; j < p_.quad_offsets.size(); ++j) {
        const int q = k * p_.step + p_.quad_offsets[j];
        mu_[q * nf_ + p_.n_y] += sigma * h * p_.quad_weights[j];
        nu_[q * nf_ + p_.n_y] += sigma * dt * p_.quad_weights[j];
      }
      for (const CollocationStencil& s : p_.stencils) {
        for (int i = 0; i < p_.n_y; ++i, ++row) {
          for (std::size_t j = 0; j < s.offsets.size(); ++j) {
            const int q = k * p_.step + s.offsets[j];
            mu_[q * nf_ + i] -= lambda[row] * h * s.b[j];
            nu_[q * nf_ + i] -= lambda[row] * dt * s.b[j];
          }
        }
      }
    }
    for (int q = 0; q < n_points_; ++q)
      for (int i = 0; i < p_.n_g; ++i) mu_[q * nf_ + p_.n_y + 1 + i] += lambda[row++];
    for (std::size_t e = 0; e < p_.hol_points.size(); ++e)
      mu_[p_.hol_points[e] * nf_ + p_.n_y + 1 + p_.n_g + p_.hol_rows[e]] += lambda[row++];
    const int nh = static_cast<int>(p_.hess_rows.size());
    in_.resize(nz_ + nf_);
    out_.resize(nh);
    for (int q = 0; q < n_points_; ++q) {
      std::copy(x + q * nz_, x + (q + 1) * nz_, in_.begin());
      std::copy(mu_.begin() + q * nf_, mu_.begin() + (q + 1) * nf_, in_.begin() + nz_);
      if (nh > 0) p_.hessian->eval(in_.data(), out_.data(), work_);
      for (int e = 0; e < nh; ++e) values[hess_point_[e] + q * hess_stride_] += out_[e];
      if (t_index_ >= 0) {
        const double* Fq = F(q);
        for (int e = 0; e < n_jac_; ++e) values[hess_time_[q * n_jac_ + e]] += nu_[q * nf_ + p_.jac_rows[e]] * Fq[nf_ + e];
      }
    }
    if (p_.terminal)
      for (std::size_t e = 0; e < p_.term_hess_rows.size(); ++e)
        values[hess_terminal_[e]] += sigma * phi_[1 + p_.n_y + e];
    if (n_slots_ > 0) correction_hessian(x, lambda, values);
    return true;
  }

  void finalize_solution(Ipopt::SolverReturn status, Index n, const Number* x, const Number* z_L, const Number* z_U,
                         Index m, const Number*, const Number* lambda, Number obj_value, const Ipopt::IpoptData* data,
                         Ipopt::IpoptCalculatedQuantities*) override {
    record_solution(status, n, x, z_L, z_U, m, lambda, obj_value, data);
    std::vector<double> g(m);
    if (update(x)) {
      defects(x, g.data());
      double worst = 0.0;
      for (int r = 0; r < n_def_; ++r) worst = std::max(worst, std::abs(g[r]));
      result_.max_defect = worst;
    } else {
      result_.max_defect = HUGE_VAL;
    }
  }

 private:
  // One contribution to an entry of the constraint Jacobian.
  struct Term {
    enum Kind { Constant, ScaledJacobian, TimeDerivative, Jacobian, Correction, CorrectionTime } kind;
    int entry, point, source, interval;  // point: the correction's slot for Correction(Time)
    double coef;
  };

  int intervals() const { return static_cast<int>(p_.dtau.size()); }
  double duration(const Number* x) const { return t_index_ >= 0 ? x[t_index_] : p_.t_final; }
  double step_size(const Number* x, int k) const { return duration(x) * p_.dtau[k]; }
  const double* F(int q) const { return F_.data() + static_cast<std::size_t>(q) * (nf_ + n_jac_); }
  // The correction of slot (interval k, stencil d) = k * stencils + d: [C (n_y), its Jacobian values].
  const double* C(int slot) const { return C_.data() + static_cast<std::size_t>(slot) * (p_.n_y + n_cjac_); }
  int slot_point(int slot) const {
    const int S = static_cast<int>(p_.stencils.size());
    return (slot / S) * p_.step + p_.corr_offsets[slot % S];
  }
  // The variable of the correction input c (z then gamma) of a slot.
  int corr_variable(int slot, int c) const {
    return c < nz_ ? slot_point(slot) * nz_ + c : n_gamma_base_ + slot * p_.n_h + (c - nz_);
  }

  // Runs the node tapes (and the terminal tape) at x unless they already ran there.
  bool update(const Number* x) {
    if (!x_.empty() && std::memcmp(x_.data(), x, sizeof(double) * n_x_) == 0) return valid_;
    x_.assign(x, x + n_x_);
    valid_ = true;
    const int width = nf_ + n_jac_;
    for (int q = 0; q < n_points_; ++q) {
      double* out = F_.data() + static_cast<std::size_t>(q) * width;
      p_.node->eval(x + q * nz_, out, work_);
      for (int i = 0; i < width; ++i) valid_ = valid_ && std::isfinite(out[i]);
    }
    if (n_slots_ > 0) {
      const int wc = p_.n_y + n_cjac_;
      in_.resize(nz_ + p_.n_h);
      for (int slot = 0; slot < n_slots_; ++slot) {
        const int q = slot_point(slot);
        std::copy(x + q * nz_, x + (q + 1) * nz_, in_.begin());
        std::copy(x + n_gamma_base_ + slot * p_.n_h, x + n_gamma_base_ + (slot + 1) * p_.n_h, in_.begin() + nz_);
        double* out = C_.data() + static_cast<std::size_t>(slot) * wc;
        p_.correction->eval(in_.data(), out, work_);
        for (int i = 0; i < wc; ++i) valid_ = valid_ && std::isfinite(out[i]);
      }
    }
    if (p_.terminal) {
      phi_.resize(p_.terminal->n_outputs());
      p_.terminal->eval(x + (n_points_ - 1) * nz_, phi_.data(), work_);
      for (double v : phi_) valid_ = valid_ && std::isfinite(v);
    }
    return valid_;
  }

  void defects(const Number* x, Number* g) const {
    int row = 0;
    for (int k = 0; k < intervals(); ++k) {
      const double h = step_size(x, k);
      for (std::size_t d = 0; d < p_.stencils.size(); ++d) {
        const CollocationStencil& s = p_.stencils[d];
        const double* c = n_slots_ > 0 ? C(k * static_cast<int>(p_.stencils.size()) + static_cast<int>(d)) : nullptr;
        for (int i = 0; i < p_.n_y; ++i, ++row) {
          double v = 0.0;
          for (std::size_t j = 0; j < s.offsets.size(); ++j) {
            const int q = k * p_.step + s.offsets[j];
            v += s.a[j] * x[q * nz_ + i] - h * s.b[j] * F(q)[i];
          }
          if (c) v -= h * c[i];
          g[row] = v;
        }
      }
    }
    for (int q = 0; q < n_points_; ++q)
      for (int i = 0; i < p_.n_g; ++i) g[row++] = F(q)[p_.n_y + 1 + i];
    for (std::size_t e = 0; e < p_.hol_points.size(); ++e)
      g[row++] = F(p_.hol_points[e])[p_.n_y + 1 + p_.n_g + p_.hol_rows[e]];
  }

  void build_jacobian() {
    int row = 0;
    for (int k = 0; k < intervals(); ++k) {
      for (const CollocationStencil& s : p_.stencils) {
        for (int i = 0; i < p_.n_y; ++i, ++row) {
          for (std::size_t j = 0; j < s.offsets.size(); ++j) {
            const int q = k * p_.step + s.offsets[j];
            if (s.a[j] != 0.0) jac_terms_.push_back({Term::Constant, jac_.add(row, q * nz_ + i), q, 0, k, s.a[j]});
            if (s.b[j] == 0.0) continue;
            for (int e = 0; e < n_jac_; ++e)
              if (p_.jac_rows[e] == i)
                jac_terms_.push_back({Term::ScaledJacobian, jac_.add(row, q * nz_ + p_.jac_cols[e]), q, e, k, -s.b[j]});
            if (t_index_ >= 0) jac_terms_.push_back({Term::TimeDerivative, jac_.add(row, t_index_), q, i, k, -s.b[j]});
          }
        }
      }
    }
    for (int q = 0; q < n_points_; ++q)
      for (int i = 0; i < p_.n_g; ++i, ++row)
        for (int e = 0; e < n_jac_; ++e)
          if (p_.jac_rows[e] == p_.n_y + 1 + i)
            jac_terms_.push_back({Term::Jacobian, jac_.add(row, q * nz_ + p_.jac_cols[e]), q, e, 0, 1.0});
    for (std::size_t h = 0; h < p_.hol_points.size(); ++h, ++row) {
      const int q = p_.hol_points[h];
      for (int e = 0; e < n_jac_; ++e)
        if (p_.jac_rows[e] == p_.n_y + 1 + p_.n_g + p_.hol_rows[h])
          jac_terms_.push_back({Term::Jacobian, jac_.add(row, q * nz_ + p_.jac_cols[e]), q, e, 0, 1.0});
    }
    // the corrections -h_k C(z, gamma) of each slot's defect rows (row of slot s, state i: s * n_y + i)
    for (int slot = 0; slot < n_slots_; ++slot) {
      const int k = slot / static_cast<int>(p_.stencils.size());
      for (int e = 0; e < n_cjac_; ++e) {
        const int r = slot * p_.n_y + p_.corr_jac_rows[e];
        jac_terms_.push_back({Term::Correction, jac_.add(r, corr_variable(slot, p_.corr_jac_cols[e])), slot, e, k, -1.0});
      }
      if (t_index_ >= 0)
        for (int i = 0; i < p_.n_y; ++i)
          jac_terms_.push_back({Term::CorrectionTime, jac_.add(slot * p_.n_y + i, t_index_), slot, i, k, -1.0});
    }
  }

  // The Hessian's pattern: each point's block (the same entries at every point, so the entry
  // of pattern e at point q is hess_point_[e] + q * hess_stride_ when the blocks are laid out
  // point after point), then the T row, then the terminal cost's block (merged into the last point's).
  void build_hessian() {
    const int nh = static_cast<int>(p_.hess_rows.size());
    hess_point_.resize(nh);
    hess_stride_ = nh;
    for (int q = 0; q < n_points_; ++q)
      for (int e = 0; e < nh; ++e) {
        const int idx = hess_.add(q * nz_ + p_.hess_rows[e], q * nz_ + p_.hess_cols[e]);
        if (q == 0) hess_point_[e] = idx;
      }
    if (t_index_ >= 0) {
      hess_time_.resize(static_cast<std::size_t>(n_points_) * n_jac_);
      for (int q = 0; q < n_points_; ++q)
        for (int e = 0; e < n_jac_; ++e) hess_time_[q * n_jac_ + e] = hess_.add(t_index_, q * nz_ + p_.jac_cols[e]);
    }
    if (p_.terminal) {
      const int base = (n_points_ - 1) * nz_;
      for (std::size_t e = 0; e < p_.term_hess_rows.size(); ++e)
        hess_terminal_.push_back(hess_.add(base + p_.term_hess_rows[e], base + p_.term_hess_cols[e]));
    }
    const int nch = static_cast<int>(p_.corr_hess_rows.size());
    for (int slot = 0; slot < n_slots_; ++slot) {
      for (int e = 0; e < nch; ++e)
        hess_corr_.push_back(
            hess_.add_lower(corr_variable(slot, p_.corr_hess_rows[e]), corr_variable(slot, p_.corr_hess_cols[e])));
      if (t_index_ >= 0)
        for (int e = 0; e < n_cjac_; ++e)
          hess_corr_time_.push_back(hess_.add_lower(t_index_, corr_variable(slot, p_.corr_jac_cols[e])));
    }
  }

  // The corrections' part of the Lagrangian's Hessian: sum over slots and states of the defect's
  // multiplier times -h_k C_i (second derivatives in z, gamma; with a free T, the cross terms
  // -dtau_k dC_i/d(z, gamma)).
  void correction_hessian(const Number* x, const Number* lambda, Number* values) {
    const int nch = static_cast<int>(p_.corr_hess_rows.size());
    const int nc = nz_ + p_.n_h;
    in_.resize(nc + p_.n_y);
    out_.resize(nch);
    for (int slot = 0; slot < n_slots_; ++slot) {
      const int k = slot / static_cast<int>(p_.stencils.size()), q = slot_point(slot);
      const double h = step_size(x, k), dt = p_.dtau[k];
      const Number* lam = lambda + slot * p_.n_y;
      std::copy(x + q * nz_, x + (q + 1) * nz_, in_.begin());
      std::copy(x + n_gamma_base_ + slot * p_.n_h, x + n_gamma_base_ + (slot + 1) * p_.n_h, in_.begin() + nz_);
      for (int i = 0; i < p_.n_y; ++i) in_[nc + i] = -h * lam[i];
      if (nch > 0) p_.corr_hessian->eval(in_.data(), out_.data(), work_);
      for (int e = 0; e < nch; ++e) values[hess_corr_[slot * nch + e]] += out_[e];
      if (t_index_ >= 0) {
        const double* c = C(slot);
        for (int e = 0; e < n_cjac_; ++e)
          values[hess_corr_time_[slot * n_cjac_ + e]] -= dt * lam[p_.corr_jac_rows[e]] * c[p_.n_y + e];
      }
    }
  }

  const CollocationProblem& p_;
  int nz_ = 0, nf_ = 0, n_points_ = 0, t_index_ = -1, n_jac_ = 0;
  int n_def_ = 0, n_gamma_base_ = 0, n_slots_ = 0, n_cjac_ = 0;  // defect rows; first gamma; correction slots
  std::vector<Term> jac_terms_;
  std::vector<int> hess_point_, hess_time_, hess_terminal_, hess_corr_, hess_corr_time_;
  int hess_stride_ = 0;
  std::vector<double> x_, F_, C_, phi_, mu_, nu_, in_, out_, work_;
  bool valid_ = false;
};

}  // namespace

CollocationResult solve_collocation(const CollocationProblem& problem, const CollocationOptions& options) {
  return solve_taped<CollocationNLP>(problem, options);
}

}  // namespace nonholo
