#include "nonholo/discrete.hpp"

#include <chrono>
#include <cmath>
#include <sstream>

#include <Eigen/LU>

#include "nonholo/format.hpp"
#include "nonholo/thread_clock.hpp"
#include "nonholo/scalar/dual.hpp"

namespace nonholo {

namespace {

using Clock = std::chrono::steady_clock;
using NewtonDual = Dual<double, kJacobianChunk>;
// The largest ratio of Newton's second correction to its first (DiscreteIntegrator::step).
constexpr double kBranchContraction = 1.0;

template <class S>
struct MidpointWork {
  Geometry<S> geo;
  VecX<S> qm, vm, Gv, dLdq, half, dGv;
};

// D1 L_d + F_d^- ("minus"), D2 L_d + F_d^+ ("plus") and the discrete constraint residual at the
// midpoint of (q0, q1); q0 is fixed (double), q1 may carry derivatives.
template <class S>
void midpoint_terms(const MechanicalSystem& sys, double h, double tm, const double* q0, const VecX<S>& q1,
                    const double* p, MidpointWork<S>& w, VecX<S>& minus, VecX<S>& plus, VecX<S>& constraint) {
  const int n = sys.n();
  w.qm.resize(n);
  w.vm.resize(n);
  for (int i = 0; i < n; ++i) {
    w.qm(i) = 0.5 * (q1(i) + q0[i]);
    w.vm(i) = (q1(i) - q0[i]) / h;
  }
  sys.evaluate(tm, w.qm.data(), w.vm.data(), p, w.geo);
  w.Gv.noalias() = w.geo.G() * w.vm;
  w.dLdq.resize(n);
  for (int l = 0; l < n; ++l) {
    w.dGv.noalias() = w.geo.dG(l) * w.vm;  // no temporary inside the dot product
    w.dLdq(l) = 0.5 * w.vm.dot(w.dGv) - w.geo.dV()(l);
  }
  w.half = (0.5 * h) * (w.dLdq + w.geo.F());
  minus = w.half - w.Gv;
  plus = w.half + w.Gv;
  constraint.noalias() = w.geo.A() * w.vm;
  constraint -= w.geo.b();
}

std::string describe(const double* q, int n) {
  std::ostringstream os;
  os.precision(6);
  os << "[";
  for (int i = 0; i < n; ++i) os << (i ? ", " : "") << q[i];
  os << "]";
  return os.str();
}

}  // namespace

struct DiscreteWork::Impl {
  MechanicsWork<double> wk;
  MatX<double> hAkT, J;
  VecX<double> guess, q1, lam, R, dz, mi, pl, cons;
  MidpointWork<NewtonDual> wd;
  MidpointWork<double> w;
  VecX<NewtonDual> q1d, minus, plus, constraint;
  // Eigen's LU rather than linalg.hpp's Lu: the (n + k)-square Newton matrix of a step, in
  // doubles only, tested for singularity by its determinant; another factorization would change
  // the roundings of every discrete trajectory.
  Eigen::PartialPivLU<MatX<double>> lu;
};

DiscreteWork::DiscreteWork() : impl(std::make_unique<Impl>()) {}
DiscreteWork::~DiscreteWork() = default;
DiscreteWork::DiscreteWork(DiscreteWork&&) noexcept = default;
DiscreteWork& DiscreteWork::operator=(DiscreteWork&&) noexcept = default;

DiscreteIntegrator::DiscreteIntegrator(std::shared_ptr<const MechanicalSystem> system, double h)
    : system_(std::move(system)), h_(h) {
  if (!(h > 0.0) || !std::isfinite(h)) throw InputError("the time step h must be positive and finite");
}

int DiscreteIntegrator::step(double t, const double* qk, const double* pk, const double* params, double* q_next,
                             double* p_next, double* lambda, const DiscreteOptions& options) const {
  DiscreteWork work;
  return step(t, qk, pk, params, q_next, p_next, lambda, options, work);
}

int DiscreteIntegrator::step(double t, const double* qk, const double* pk, const double* params, double* q_next,
                             double* p_next, double* lambda, const DiscreteOptions& options,
                             DiscreteWork& work) const {
  const MechanicalSystem& sys = *system_;
  const int n = sys.n(), k = sys.k(), m = n + k;
  const double tm = t + 0.5 * h_;
  DiscreteWork::Impl& w = *work.impl;

  // A(q_k) and an initial guess q_{k+1} = q_k + h G(q_k)^-1 p_k
  sys.evaluate_dynamics(t, qk, qk, params, w.wk.geo);
  factor_metric(w.wk);
  w.hAkT = h_ * w.wk.geo.A().transpose();
  w.guess = Eigen::Map<const VecX<double>>(pk, n);
  w.wk.chol_G.solve_in_place(w.guess);

  w.q1 = Eigen::Map<const VecX<double>>(qk, n) + h_ * w.guess;
  w.lam = Eigen::Map<const VecX<double>>(lambda, k);
  Eigen::Map<const VecX<double>> p(pk, n);

  w.q1d.resize(n);
  w.minus.resize(n);
  w.plus.resize(n);
  w.constraint.resize(k);
  w.J.resize(m, m);
  w.R.resize(m);
  w.dz.resize(m);
  double first = 0.0;  // |delta q| of the first Newton correction, from the explicit predictor
  for (int it = 1; it <= options.max_newton_iterations; ++it) {
    // residual and its Jacobian in q_{k+1}, in chunks of dual directions
    for (int c0 = 0; c0 < n; c0 += kJacobianChunk) {
      for (int i = 0; i < n; ++i) {
        w.q1d(i) = NewtonDual(w.q1(i));
        if (i >= c0 && i < c0 + kJacobianChunk) w.q1d(i).d[i - c0] = 1.0;
      }
      midpoint_terms(sys, h_, tm, qk, w.q1d, params, w.wd, w.minus, w.plus, w.constraint);
      for (int j = c0; j < std::min(n, c0 + kJacobianChunk); ++j) {
        for (int i = 0; i < n; ++i) w.J(i, j) = w.minus(i).d[j - c0];
        for (int a = 0; a < k; ++a) w.J(n + a, j) = w.constraint(a).d[j - c0];
      }
    }
    for (int i = 0; i < n; ++i) w.R(i) = p(i) + w.minus(i).v;
    w.R.head(n).noalias() += w.hAkT * w.lam;
    for (int a = 0; a < k; ++a) w.R(n + a) = w.constraint(a).v;
    w.J.block(0, n, n, k) = w.hAkT;
    w.J.block(n, n, k, k).setZero();

    w.lu.compute(w.J);
    if (!(std::abs(w.lu.determinant()) > 0.0) || !w.R.allFinite())
      throw SolverError("Newton's method met a singular or non-finite system at t = " + format_number(t) +
                        ", q = " + describe(qk, n) + " (the step h is too large, or the constraints are singular)",
                        t);
    w.R = -w.R;
    w.dz = w.lu.solve(w.R);
    w.q1 += w.dz.head(n);
    w.lam += w.dz.tail(k);
    const double scale = 1.0 + w.q1.cwiseAbs().maxCoeff();
    if (!w.dz.allFinite())
      throw SolverError("Newton's method diverged at t = " + format_number(t) + " (reduce h)", t);
    const double correction = w.dz.head(n).cwiseAbs().maxCoeff();
    if (it == 1) first = correction;
    // On the branch of the continuous flow the predictor lies in the root's basin and Newton's
    // corrections contract at once; a second correction as large as the first means the iteration
    // left the predictor's neighbourhood, and any root it meets may lie on another branch (the
    // sleigh at h = 2: a root with 14 times the energy, accepted, then 15,000 times by t = 40).
    if (it == 2 && correction > kBranchContraction * first && first > options.newton_tol * scale)
      throw SolverError("Newton's method does not contract from the explicit predictor at t = " + format_number(t) +
                            ", q = " + describe(qk, n) + " (its second correction is " +
                            format_number(correction / first) + " times its first): the step h is too large for "
                            "the motion here, and a root it converged to could lie off the branch of the continuous "
                            "flow (reduce h)", t);
    if (correction <= options.newton_tol * scale) {
      // final momenta at the converged point
      w.mi.resize(n);
      w.pl.resize(n);
      w.cons.resize(k);
      midpoint_terms(sys, h_, tm, qk, w.q1, params, w.w, w.mi, w.pl, w.cons);
      for (int i = 0; i < n; ++i) {
        q_next[i] = w.q1(i);
        p_next[i] = w.pl(i);
      }
      for (int a = 0; a < k; ++a) lambda[a] = w.lam(a);
      return it;
    }
  }
  throw SolverError("Newton's method did not converge in " + std::to_string(options.max_newton_iterations) +
                    " iterations at t = " + format_number(t) + ", q = " + describe(qk, n) +
                    " (the step h is too large, or the iteration left the branch of the continuous flow)", t);
}

DiscreteOutput DiscreteIntegrator::run(const std::vector<double>& q0, const std::vector<double>& v0,
                                       const std::vector<double>& params, double t0, long n_steps,
                                       const DiscreteOptions& options, const InterruptCheck& interrupted) const {
  const MechanicalSystem& sys = *system_;
  const int n = sys.n(), k = sys.k();
  if (static_cast<int>(q0.size()) != n) throw InputError("q0 has the wrong length");
  if (static_cast<int>(v0.size()) != n) throw InputError("v0 has the wrong length");
  if (static_cast<int>(params.size()) != sys.n_params()) throw InputError("params has the wrong length");
  if (n_steps < 0) throw InputError("the number of steps must be non-negative");
  if (!(options.newton_tol > 0.0) || options.max_newton_iterations < 1)
    throw InputError("newton_tol must be positive and max_newton_iterations at least 1");

  const auto start = Clock::now();
  const double cpu_start = thread_cpu_seconds();
  DiscreteOutput out;
  out.n = n;
  out.k = k;
  std::vector<double> q = q0, pmom(n), q_next(n), p_next(n), lam(k, 0.0);

  // p0 = G(q0) v0, and the velocity reported at each node: G^-1 p projected onto A v = b
  MechanicsWork<double> w;
  sys.evaluate_dynamics(t0, q0.data(), v0.data(), params.data(), w.geo);
  factor_metric(w);
  factor_constraints(w);
  Eigen::Map<VecX<double>>(pmom.data(), n) = w.geo.G() * Eigen::Map<const VecX<double>>(v0.data(), n);

  auto record = [&](double t) {
    sys.evaluate_dynamics(t, q.data(), q.data(), params.data(), w.geo);
    factor_metric(w);
    factor_constraints(w);
    VecX<double> v = Eigen::Map<const VecX<double>>(pmom.data(), n);
    w.chol_G.solve_in_place(v);
    w.tmp_k = w.geo.A() * v - w.geo.b();
    w.chol_M.solve_in_place(w.tmp_k);
    v -= w.GinvAT * w.tmp_k;
    out.t.push_back(t);
    out.q.insert(out.q.end(), q.begin(), q.end());
    out.v.insert(out.v.end(), v.data(), v.data() + n);
    out.p.insert(out.p.end(), pmom.begin(), pmom.end());
  };

  record(t0);
  double t = t0;
  out.status = 0;
  out.message = "All steps were taken.";
  DiscreteWork work;
  std::vector<double> qm(n), vm(n);
  for (long s = 0; s < n_steps; ++s) {
    // the step, and the velocity of its end (a projection, which fails where the constraint rows
    // turn dependent there): a failure ends the run with the steps before it kept, as simulate's
    VecX<double> res;
    try {
      out.newton_iterations += step(t, q.data(), pmom.data(), params.data(), q_next.data(), p_next.data(), lam.data(),
                                    options, work);
      // discrete constraint residual at the midpoint of the accepted step
      for (int i = 0; i < n; ++i) {
        qm[i] = 0.5 * (q[i] + q_next[i]);
        vm[i] = (q_next[i] - q[i]) / h_;
      }
      sys.evaluate_dynamics(t + 0.5 * h_, qm.data(), vm.data(), params.data(), w.geo);
      res = w.geo.A() * Eigen::Map<const VecX<double>>(vm.data(), n) - w.geo.b();
      const double t_next = t0 + double(s + 1) * h_;
      q.swap(q_next);
      pmom.swap(p_next);
      try {
        record(t_next);  // records nothing when it throws
      } catch (...) {
        q.swap(q_next);  // the state of the last recorded step
        pmom.swap(p_next);
        throw;
      }
      t = t_next;
    } catch (const SolverError& e) {
      out.status = -1;
      out.message = std::string("Discrete integration failed at step ") + std::to_string(s) + ": " + e.what();
      break;
    } catch (const ModelError& e) {
      out.status = -1;
      out.message = std::string("Discrete integration failed at step ") + std::to_string(s) + ": " + e.what();
      break;
    }
    if (k > 0) out.max_constraint_residual = std::max(out.max_constraint_residual, res.cwiseAbs().maxCoeff());
    out.lambda.insert(out.lambda.end(), lam.begin(), lam.end());
    if ((s + 1) % 256 == 0) {
      double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
      if (options.max_wall_time > 0 && elapsed > options.max_wall_time) {
        out.status = -1;
        out.message = "Discrete integration stopped at t = " + format_number(t) + " after max_wall_time";
        break;
      }
      if (interrupted && interrupted()) {
        out.status = -1;
        out.interrupted = true;
        out.message = "Discrete integration interrupted at t = " + format_number(t);
        break;
      }
    }
  }
  out.t_last = t;
  out.cpu_time = thread_cpu_seconds() - cpu_start;
  return out;
}

}  // namespace nonholo
