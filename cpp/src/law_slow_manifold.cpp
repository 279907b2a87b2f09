// The slow manifold of a friction law given by tapes (nonholo/law_slow_manifold.hpp): the leading
// slip by Newton's method in doubles, the law's checks and its queries at a point, compiled once.
#include "nonholo/law_slow_manifold.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>


namespace nonholo {

NONHOLO_LAW_TRUNCATED_SLIP(double, double);
NONHOLO_LAW_TRUNCATED_SLIP(JacobianScalar, double);
NONHOLO_LAW_TRUNCATED_SLIP(JacobianScalar, JacobianScalar);

void LawExpansion::check(const MechanicalSystem& sys) const {
  const int n = sys.n(), k = sys.k(), np = sys.n_params();
  if (k == 0) throw InputError("system: it has no constraint rows to realize by a friction law");
  if (laws.size() != rows.size() || (limits && has_limit.size() != rows.size()))
    throw InputError("law: one tape and one row list per contact are needed");
  std::vector<int> seen(k, 0);
  for (std::size_t c = 0; c < rows.size(); ++c) {
    const int r = static_cast<int>(rows[c].size());
    if (r == 0) throw InputError("law: contact " + std::to_string(c) + " has no rows");
    for (int a : rows[c]) {
      if (a < 0 || a >= k || seen[a]++) throw InputError("law: the contacts' rows must cover 0..k-1 once each");
    }
    if (!laws[c] || laws[c]->n_inputs() != r + 2 * n + 1 + np || laws[c]->n_outputs() != r)
      throw InputError("law: the tape of contact " + std::to_string(c) + " must map [slip (" + std::to_string(r) +
                       "), q, v, t, p] to " + std::to_string(r) + " forces");
  }
  for (int a = 0; a < k; ++a)
    if (!seen[a]) throw InputError("law: the contacts' rows must cover 0..k-1 once each");
  if (!scale || scale->n_inputs() != np || scale->n_outputs() != 1)
    throw InputError("law: the scale tape must map the system's parameters to one number");
  if (limits && (limits->n_inputs() != 2 * n + 1 + np || limits->n_outputs() != static_cast<int>(rows.size())))
    throw InputError("law: the limit tape must map [q, v, t, p] to one edge of the cone per contact");
}

void law_value_and_jacobian(const Tape& tape, int r, const VecX<double>& x, LawSlipWork<double>& w,
                            VecX<double>* value, MatX<double>* J) {
  for (int i = 0; i < r; ++i) w.din[i] = x(i);
  if (J == nullptr) {
    w.dout.resize(r);
    tape.eval(w.din.data(), w.dout.data(), w.dwork);
    value->resize(r);
    for (int i = 0; i < r; ++i) (*value)(i) = w.dout[i];
    return;
  }
  // column j of the Jacobian by one dual direction; the value parts are Phi(x) itself
  J->resize(r, r);
  w.jin.resize(w.din.size());
  w.jout.resize(r);
  for (std::size_t i = 0; i < w.din.size(); ++i) w.jin[i] = Dual<double, 1>(w.din[i]);
  for (int j = 0; j < r; ++j) {
    w.jin[j].d[0] = 1.0;
    tape.eval(w.jin.data(), w.jout.data(), w.jwork);
    w.jin[j].d[0] = 0.0;
    for (int i = 0; i < r; ++i) (*J)(i, j) = w.jout[i].d[0];
  }
  if (value != nullptr) {
    value->resize(r);
    for (int i = 0; i < r; ++i) (*value)(i) = w.jout[i].v;
  }
}

namespace {

std::string point_text(int n, double t, const double* q) {
  std::ostringstream os;
  os.precision(6);
  os << "q = [";
  for (int i = 0; i < n; ++i) os << (i ? ", " : "") << q[i];
  os << "], t = " << t;
  return os.str();
}

}  // namespace

// The residual |Phi(x) - target| / |target| a stalled Newton iteration of the leading slip
// accepts: rounding, far below any force the law misses (a law pushed past its peak stalls there
// with a residual of the order of the excess).
constexpr double kStalledResidual = 1e-10;

void law_leading_slip_contact(const MechanicalSystem& sys, const LawExpansion& law, int c, double t,
                              const double* q, const double* u, const double* p, LawSlipWork<double>& w) {
  const std::vector<int>& rows = law.rows[c];
  const int r = static_cast<int>(rows.size());
  const Tape& tape = *law.laws[c];
  w.target.resize(r);
  for (int i = 0; i < r; ++i) w.target(i) = -w.lam_value(rows[i]);
  const double target_norm = w.target.norm();
  if (law.limits && law.has_limit[c]) {
    pack_law_inputs(sys, 0, t, q, u, p, w.din);
    w.dout.resize(law.rows.size());
    law.limits->eval(w.din.data(), w.dout.data(), w.dwork);
    const double limit = w.dout[c];
    if (!(target_norm < limit)) {
      std::ostringstream os;
      os.precision(6);
      os << "the constraint force of contact " << c << " leaves the friction cone at " << point_text(sys.n(), t, q)
         << ": |lambda| / (saturation N) = " << target_norm / limit << " >= 1, where the slow manifold of the "
         << law.name << " law folds (no slip carries the force)";
      throw ModelError(os.str());
    }
  }
  pack_law_inputs(sys, r, t, q, u, p, w.din);
  // x = Phi'(0)^-1 target, then damped Newton steps (the reference's, law_slow_manifold.py)
  w.x.setZero(r);
  law_value_and_jacobian(tape, r, w.x, w, nullptr, &w.J);
  if (!w.lu.compute(w.J)) throw ModelError("the slope of the " + law.name + " law is singular at zero slip");
  w.x = w.target;
  w.lu.solve_in_place(w.x);
  // relative to the force: a floor of 1 took the linear start for the answer where the forces are
  // below 1e-9 (a block pushed by 2e-15 at N = 1e-14: creep 8.4% off)
  const double scale = target_norm;
  for (int it = 0; it < 100; ++it) {
    law_value_and_jacobian(tape, r, w.x, w, &w.res, &w.J);
    w.res -= w.target;
    const double res_norm = w.res.norm();
    if (res_norm <= 1e-15 * scale) return;
    if (!w.lu.compute(w.J)) break;
    w.step = w.res;
    w.lu.solve_in_place(w.step);
    double length = 1.0;
    while (length > 1e-10) {
      w.trial = w.x - length * w.step;
      law_value_and_jacobian(tape, r, w.trial, w, &w.value, nullptr);
      if ((w.value - w.target).norm() <= (1 - 1e-4 * length) * res_norm) break;
      length /= 2;
    }
    w.x -= length * w.step;
    if (length <= 1e-10 || (length * w.step).norm() <= 1e-15 * (1 + w.x.norm())) {
      // Newton has stalled: a solution limited by rounding, or a point where the law's slope
      // vanishes short of the force (its peak, when the force exceeds the law's largest): the
      // residual decides
      law_value_and_jacobian(tape, r, w.x, w, &w.res, &w.J);  // the slope at the solution
      if ((w.res - w.target).norm() <= kStalledResidual * scale) return;
      break;
    }
  }
  law_value_and_jacobian(tape, r, w.x, w, &w.res, nullptr);
  std::ostringstream os;
  os.precision(3);
  os << "the leading slip of contact " << c << " did not converge at " << point_text(sys.n(), t, q)
     << " (residual " << (w.res - w.target).norm() << "): no slip of the " << law.name
     << " law carries the constraint force there";
  throw ModelError(os.str());
}

namespace {

// The ray of slips x d, x >= 0, that the largest force of the law in the direction e is sought
// on: from kRayFirst to kRayLast (slips in units of the law's scale, whose features lie near 1)
// by the factor kRayFactor, then the first peak refined by golden-section search.
constexpr double kRayFirst = 1e-4, kRayLast = 1e10, kRayFactor = 1.25;
constexpr int kGoldenSteps = 48;

// e . Phi_c(x d), the inputs of the law's tape packed in w.din from index r.
double force_along(const Tape& tape, int r, double x, const VecX<double>& d, const VecX<double>& e,
                   LawSlipWork<double>& w) {
  w.trial = x * d;
  law_value_and_jacobian(tape, r, w.trial, w, &w.value, nullptr);
  return w.value.dot(e);
}

// The law's largest force along e on the ray x d, scanned from x = start: its first peak, or its
// supremum where it rises all the way (the value at kRayLast, or where kFlatSteps steps in a row
// add less than rounding: a saturating law such as tanh(x) is flat from x = 20); a fall by more than
// rounding marks the peak. Started at the slip that carries the force (the ratio's point), the scan
// takes about 20 evaluations where it took 144 from kRayFirst (an order-1 sleigh run 30% slower).
constexpr int kFlatSteps = 3;
double largest_force_along(const Tape& tape, int r, const VecX<double>& d, const VecX<double>& e,
                           LawSlipWork<double>& w, double start) {
  double before = 0.0, last = 0.0, g_last = 0.0;  // g(0) = 0
  int flat = 0;
  for (double x = start; x <= kRayLast; x *= kRayFactor) {
    const double g = force_along(tape, r, x, d, e, w);
    if (!std::isfinite(g)) return g_last;
    if (g < g_last - 1e-12 * std::abs(g_last)) {  // fell: the first peak lies in (before, x)
      const double phi = 0.5 * (std::sqrt(5.0) - 1.0);
      double a = before, b = x;
      double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
      double g1 = force_along(tape, r, x1, d, e, w), g2 = force_along(tape, r, x2, d, e, w);
      for (int i = 0; i < kGoldenSteps; ++i) {
        if (g1 >= g2) {
          b = x2, x2 = x1, g2 = g1;
          x1 = b - phi * (b - a);
          g1 = force_along(tape, r, x1, d, e, w);
        } else {
          a = x1, x1 = x2, g1 = g2;
          x2 = a + phi * (b - a);
          g2 = force_along(tape, r, x2, d, e, w);
        }
      }
      return std::max({g_last, g1, g2});
    }
    flat = g > 0.0 && g - g_last <= 1e-13 * g ? flat + 1 : 0;
    if (flat >= kFlatSteps) return g;
    before = last;
    last = x;
    g_last = g;
  }
  return g_last;
}

}  // namespace

void law_friction_ratio(const MechanicalSystem& sys, const LawExpansion& law, double t, const double* q,
                        const double* u, const double* p, const VecX<double>& lam, double* ratio,
                        LawSlipWork<double>& w) {
  const int contacts = static_cast<int>(law.rows.size());
  w.lam_value = lam;
  VecX<double> f, e, d;
  std::vector<double> edge_in, edges, edge_work;  // L_c per contact, evaluated once where a law fills its disc
  for (int c = 0; c < contacts; ++c) {
    const std::vector<int>& rows = law.rows[c];
    const int r = static_cast<int>(rows.size());
    f.resize(r);
    for (int i = 0; i < r; ++i) f(i) = -lam(rows[i]);
    const double norm = f.norm();
    if (norm == 0.0) {
      ratio[c] = 0.0;
      continue;
    }
    if (law.limits && c < static_cast<int>(law.disc.size()) && law.disc[c] && law.has_limit[c]) {
      if (edges.empty()) {  // the range is the disc of radius L_c: the ratio at once (Coulomb, Stribeck, ...)
        pack_law_inputs(sys, 0, t, q, u, p, edge_in);
        edges.resize(static_cast<std::size_t>(contacts));
        law.limits->eval(edge_in.data(), edges.data(), edge_work);
      }
      ratio[c] = norm / edges[static_cast<std::size_t>(c)];
      continue;
    }
    e = f / norm;
    // the slip that carries f (its direction), or none: the linear law's Phi'(0)^-1 f
    bool carried = true;
    double start = kRayFirst;
    try {
      law_leading_slip_contact(sys, law, c, t, q, u, p, w);
      d = w.x;
      start = std::max(kRayFirst, d.norm());
    } catch (const ModelError&) {
      carried = false;
    }
    const Tape& tape = *law.laws[c];
    pack_law_inputs(sys, r, t, q, u, p, w.din);
    if (!carried || !(d.norm() > 0.0) || !d.allFinite()) {
      w.x.setZero(r);
      law_value_and_jacobian(tape, r, w.x, w, nullptr, &w.J);
      if (!w.lu.compute(w.J)) {
        ratio[c] = std::numeric_limits<double>::quiet_NaN();  // the law gives no force here (no load)
        continue;
      }
      d = f;
      w.lu.solve_in_place(d);
    }
    d /= d.norm();
    const double largest = largest_force_along(tape, r, d, e, w, carried ? start : kRayFirst);
    double rho = largest > 0.0 ? norm / largest : std::numeric_limits<double>::infinity();
    if (!carried) rho = std::max(rho, 1.0);  // no slip of the law carries the force: past the fold
    ratio[c] = rho;
  }
}

double law_scale_value(const MechanicalSystem& sys, const LawExpansion& law, const double* p) {
  std::vector<double> in, out, work;
  return law_scale_at(law, sys.n_params(), p, in, out, work);
}

void law_friction_ratio_at(const MechanicalSystem& sys, const LawExpansion& law, double t, const double* q,
                           const double* u, const double* p, double* ratio) {
  MechanicsWork<double> w;
  VecX<double> f, lam;
  sys.evaluate_dynamics(t, q, u, p, w.geo);
  law_multipliers(w, f, lam);
  LawSlipWork<double> sw;
  law_friction_ratio(sys, law, t, q, u, p, lam, ratio, sw);
}

double LawFoldEvent::operator()(double t, const double* y, const double* p) const {
  std::vector<double> ratio(law->rows.size());
  law_friction_ratio_at(*system, *law, t, y, y + system->n(), p, ratio.data());
  double worst = 0.0;
  for (double r : ratio)
    if (!std::isnan(r)) worst = std::max(worst, std::min(r, 1e6));  // finite: an event must be
  return threshold - worst;
}

void law_slip_terms(const MechanicalSystem& sys, const LawExpansion& law, double t, const double* q, const double* u,
                    const double* p, int K, double* h) {
  const int n = sys.n();
  if (K < 0 || K > kMaxSeriesDegree)
    throw InputError("order must be between 0 and " + std::to_string(kMaxSeriesDegree) + " (got " +
                     std::to_string(K) + ")");
  if (K == 0) return;
  MechanicsWork<double> w;
  VecX<double> f, lam;
  LawSlipWork<double> sw, dw;
  sys.evaluate_dynamics(t, q, u, p, w.geo);
  law_multipliers(w, f, lam);
  law_slip_coefficients(sys, law, t, q, u, p, lam, K, sw, dw);
  VecX<double> y, col(n);
  for (int j = 0; j < K; ++j) {
    y = sw.coeffs.col(j);
    w.chol_M.solve_in_place(y);
    col.noalias() = w.GinvAT * y;
    for (int i = 0; i < n; ++i) h[j * n + i] = col(i);
  }
}

}  // namespace nonholo
