#include "nonholo/model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "nonholo/cost_constants.hpp"
#include "nonholo/errors.hpp"
#include "nonholo/measured_costs.hpp"
#include "nonholo/models/friction.hpp"
#include "nonholo/models/nonholonomic.hpp"
#include "nonholo/models/reduced.hpp"
#include "nonholo/models/sparse_backend.hpp"

namespace nonholo {

WorkspaceLease::~WorkspaceLease() {
  if (ws_) model_->return_workspace(std::move(ws_));
}

WorkspaceLease Model::borrow_workspace() const {
  {
    std::lock_guard<std::mutex> lock(pool_.mutex);
    if (!pool_.idle.empty()) {
      std::unique_ptr<Workspace> ws = std::move(pool_.idle.back());
      pool_.idle.pop_back();
      return WorkspaceLease(*this, std::move(ws));
    }
  }
  return WorkspaceLease(*this, workspace());
}

void Model::return_workspace(std::unique_ptr<Workspace> ws) const {
  // a re-split of the run that used it is not carried into the next one
  if (const FrameWatcher* watch = frame_watch()) watch->reset_frame(*ws);
  std::lock_guard<std::mutex> lock(pool_.mutex);
  if (pool_.idle.size() < WorkspacePool::kIdleWorkspaces) pool_.idle.push_back(std::move(ws));
}

void Model::check_state(double, const double*, const double*, Workspace&) const {}

const CostEstimate& Model::cost() const {
  if (const CostEstimate* estimate = parts().cost) return *estimate;
  throw std::logic_error("the " + kind() + " model gives no cost estimate (Model::parts)");
}

double Model::measured_jacobian_cost(double t, const double* y, const double* p) const {
  std::lock_guard<std::mutex> lock(measured_.mutex);  // one measurement, whichever thread comes first
  if (std::isnan(measured_.jacobian)) {
    try {
      SteadyStopwatch clock;
      measured_.jacobian = measure_costs(*this, t, y, p, clock).jacobian_cost();
    } catch (const std::exception&) {
      return std::numeric_limits<double>::quiet_NaN();  // the run reports the failure, with its state
    }
  }
  return measured_.jacobian;
}

double Model::measured_jacobian_cost() const { return measured_.kept(); }

void Model::keep_measured_jacobian_cost(double cost) const {
  if (!(std::isfinite(cost) && cost > 0.0))
    throw std::invalid_argument("a measured Jacobian cost must be finite and positive, got " + std::to_string(cost));
  std::lock_guard<std::mutex> lock(measured_.mutex);
  if (std::isnan(measured_.jacobian)) measured_.jacobian = cost;
}

std::vector<TapeName> Model::tape_names() const {
  std::vector<TapeName> names = MechanicalSystem::tape_names();
  if (const TapeSet* own = tapes())
    for (TapeName name : own->own_tape_names()) names.push_back(name);
  if (fused_) names.push_back(TapeName::Rhs);
  return names;
}

std::vector<TapeName> Model::compiled_tapes() const {
  const TapeSet* own = tapes();
  std::vector<TapeName> names = own ? own->rhs_tapes() : std::vector<TapeName>{};
  if (fused_) names.push_back(TapeName::Rhs);
  return names;
}

const Tape& Model::named_tape(TapeName name) const {
  if (name == TapeName::Rhs && fused_) return fused_->tape();
  if (const TapeSet* own = tapes())
    if (const Tape* tape = own->own_tape(name)) return *tape;
  const auto& system_names = MechanicalSystem::tape_names();
  if (std::find(system_names.begin(), system_names.end(), name) != system_names.end())
    return system_->tape_named(name);
  throw InputError("which must be one of the " + kind() + " model's tapes " + quoted_tape_names(tape_names()) +
                   ", got '" + to_string(name) + "'");
}

void Model::refuse_fusing() const {
  throw InputError("the " + kind() + " model's right-hand side cannot be fused (traced whole into one tape)");
}

namespace {

// The i-th coordinate of the attempt-th point a fused trace is tried at: away from 0 and from
// multiples of pi/2, where metrics and constraints of angles are often singular.
double trace_coordinate(int i, int attempt) {
  return 0.35 + 0.5 * std::sin(1.3 * (i + 1) + 0.7 * attempt) + 0.02 * i;
}

constexpr int kTraceAttempts = 6;

}  // namespace

bool Model::fuse(const double* p) const {
  const TapeSet* own = tapes();
  if (own == nullptr || !own->fusable()) refuse_fusing();
  std::vector<double> y(n_states()), ydot(n_states());
  std::string reason;
  for (int attempt = 0; attempt < kTraceAttempts; ++attempt) {
    for (int i = 0; i < n_states(); ++i) y[i] = trace_coordinate(i, attempt);
    try {
      WorkspaceLease ws = borrow_workspace();
      rhs(0.0, y.data(), p, ydot.data(), *ws);  // regular here: the model's own factorizations succeed
      if (!std::all_of(ydot.begin(), ydot.end(), [](double x) { return std::isfinite(x); })) {
        reason = "the right-hand side is not finite there";
        continue;
      }
      fused_ = own->trace_fused(0.0, y.data(), p);
      return true;
    } catch (const ModelError& e) {
      reason = e.what();
    } catch (const Traced::TooLarge&) {
      fused_.reset();
      return false;
    }
  }
  throw ModelError("no point to trace the " + kind() + " model's right-hand side at: " + std::to_string(kTraceAttempts) +
                   " points tried, the last because " + reason);
}

namespace {

// Cost model of one evaluation: the constants, their unit and where they came from are in
// cost_constants.hpp (tools/measure_cost_constants.py measures them again); only ratios enter the
// choices (implicit or dual Jacobian, the integrator's refresh policy).
using cost::kCall, cost::kInstruction, cost::kFlop, cost::kDualCall, cost::kDualInstruction, cost::kDualFlop;
using cost::kFrictionImplicitCall, cost::kFrictionJacobianInstruction, cost::kFrictionJacobianFlop;
using cost::kNonholonomicImplicitCall, cost::kNonholonomicJacobianInstruction, cost::kNonholonomicJacobianFlop;

// Dense operations of one right-hand side: the L D L^T of G and its solve, and for the
// nonholonomic model the saddle point (G^-1 A^T, M = A G^-1 A^T and its factorization).
template <class Law>
double friction_flops(double n, double k) {
  return n * n * n / 3 + n * n + 4 * n * k + Law::force_flops(k);
}
double nonholonomic_flops(double n, double k) { return saddle_point_flops(n, k); }
// Multiply-adds of the implicit Jacobians' work on the 2n columns (implicit_jacobian.hpp),
// counted as friction_flops counts (a solve with L D L^T: n^2 per column); the derivative blocks
// by their nonzeros (JacobianLayout).
// Friction: dG_l v', dA_l v, db_l, dA_l^T z (nonzeros), the law's dz on 2n columns (for the
// viscous law mu ds/dq and mu A, 2 n k^2, and dmu_l s by its nonzeros), A^T dz on 2n columns
// (2 k n^2), the solves with G (2 n^3).
template <class Law>
double friction_jacobian_flops(double n, double k, const JacobianLayout& J) {
  return 2 * n * n * n + 2 * k * n * n + J.dG.nonzeros() + 2.0 * J.dA.nonzeros() + J.db.nonzeros() +
         Law::derivative_flops(n, k, J.dmu.nonzeros());
}
// Nonholonomic: dG_l v', dA_l^T lambda and dA_l v' (nonzeros), the solve with the saddle point
// on 2n columns: L^-1 and L^-T (n^3 each), C^T (2 k n^2 twice), M^-1 (2 n k^2).
double nonholonomic_jacobian_flops(double n, double k, const JacobianLayout& J) {
  return 2 * n * n * n + 4 * k * n * n + 2 * n * k * k + J.dG.nonzeros() + 2.0 * J.dA.nonzeros();
}

// model.compile() builds the implicit Jacobian's tape by default while it is at most this many
// times the dynamics tape (compiled_jacobian_pays; why: cost_constants.hpp).
using cost::kCompiledJacobianRatio;

double rhs_ns(const MechanicalSystem& s, double flops) {
  return kCall + kInstruction * s.dynamics_tape().n_instructions() + kFlop * flops;
}
double dual_ns(const Model& m, double flops) {
  const int chunks = (m.n_states() + kJacobianChunk - 1) / kJacobianChunk;
  return chunks * (kDualCall + kDualInstruction * m.system().dynamics_tape().n_instructions() + kDualFlop * flops);
}
double implicit_ns(const MechanicalSystem& s, double call, double per_instruction, double per_flop, double flops) {
  return call + per_instruction * s.jacobian_tape().n_instructions() + per_flop * flops;
}

}  // namespace

bool compiled_jacobian_pays(const MechanicalSystem& system) {
  return system.jacobian_tape().n_instructions() <= kCompiledJacobianRatio * system.dynamics_tape().n_instructions();
}

// Models without a cost model of their own: the tape and a fixed cost; dual numbers cost
// kJacobianChunk + 1 doubles per operation, once per chunk.
double default_rhs_cost_ns(const Model& model) {
  return kCall + kInstruction * model.system().dynamics_tape().n_instructions();
}
double default_dual_jacobian_cost(const Model& model) {
  const int chunks = (model.n_states() + kJacobianChunk - 1) / kJacobianChunk;
  return chunks * (kJacobianChunk + 1.0);
}

double NonholonomicModel::rhs_cost_ns() const {
  if (const CoordinatePartition* p = system().layout().partition.get())  // elimination
    return rhs_ns(system(), p->flops() + kEliminationOverheadFlops);
  return rhs_ns(system(), nonholonomic_flops(system().n(), system().k()));
}
double NonholonomicModel::dual_jacobian_cost() const {
  return dual_ns(*this, nonholonomic_flops(system().n(), system().k())) / rhs_cost_ns();
}
double NonholonomicModel::implicit_jacobian_cost() const {
  const double n = system().n(), k = system().k();
  return implicit_ns(system(), kNonholonomicImplicitCall, kNonholonomicJacobianInstruction, kNonholonomicJacobianFlop,
                     nonholonomic_flops(n, k) + nonholonomic_jacobian_flops(n, k, system().jacobian_layout())) /
         rhs_cost_ns();
}

// The sparse models: the sparse tape, and the L D L^T of K (about two operations per stored
// entry of the factor, estimated by the pattern's entries: no fill for block-diagonal systems);
// a Jacobian costs one dual sweep per chunk of colours and one solve per colour.
double sparse_rhs_cost_ns(const MechanicalSystem& system, const SymmetricPattern& pattern) {
  return kCall + kInstruction * system.sparse_tape().n_instructions() + kFlop * 4.0 * pattern.lower().nonZeros();
}
double sparse_jacobian_cost(const MechanicalSystem& system, const SymmetricPattern& pattern,
                            const JacobianStructure& structure) {
  const int colors = std::max(structure.n_colors, 1);
  const int chunks = (colors + kJacobianChunk - 1) / kJacobianChunk;
  const double entries = pattern.lower().nonZeros();
  const double ns = chunks * (kDualCall + kDualInstruction * system.sparse_tape().n_instructions() +
                              kFlop * 4.0 * entries) + colors * kFlop * 4.0 * entries;
  return ns / sparse_rhs_cost_ns(system, pattern);
}

template <class Law>
double FrictionModel<Law>::rhs_cost_ns() const {
  return rhs_ns(system(), friction_flops<Law>(system().n(), system().k()));
}
template <class Law>
double FrictionModel<Law>::dual_jacobian_cost() const {
  return dual_ns(*this, friction_flops<Law>(system().n(), system().k())) / rhs_cost_ns();
}
template <class Law>
double FrictionModel<Law>::implicit_jacobian_cost() const {
  const double n = system().n(), k = system().k();
  return implicit_ns(system(), kFrictionImplicitCall, kFrictionJacobianInstruction, kFrictionJacobianFlop,
                     friction_flops<Law>(n, k) + friction_jacobian_flops<Law>(n, k, system().jacobian_layout())) /
         rhs_cost_ns();
}
template double FrictionModel<ViscousLaw>::rhs_cost_ns() const;
template double FrictionModel<ViscousLaw>::dual_jacobian_cost() const;
template double FrictionModel<ViscousLaw>::implicit_jacobian_cost() const;

// The reduced models: order 0 evaluates the dynamics tape and solves like the nonholonomic model;
// order 1 the split projection tape (base at (q, u), velocity part at (q, v)) and one factorization; a compiled order K >= 2 the slip tape, then the projection tape at (q, v); Taylor mode
// (K >= 2, not compiled) 2K sweeps of the projection tape in series of degree < K, each
// operation costing about D^2 / 2 for degree D (a bound, not a fit: these models run with Adams).
double reduced_rhs_cost_ns(const MechanicalSystem& s, int order, const CompiledSlip* compiled) {
  const double flops = nonholonomic_flops(s.n(), s.k());
  if (order == 0) return rhs_ns(s, flops);
  if (order == 1 && compiled == nullptr)  // G and M factored once for h^(1) and u'
    return kCall + kInstruction * (s.split_base_tape().n_instructions() + s.velocity_part_tape().n_instructions()) +
           kFlop * flops;
  const double projection = kInstruction * s.projection_tape().n_instructions() + 2 * kFlop * flops;
  if (compiled != nullptr) return kCall + kInstruction * compiled->tape().n_instructions() + projection;
  double series = 0.0;
  for (int sweep = 0; sweep < 2 * order; ++sweep) {
    const double D = std::min(sweep, order - 1) + 1.0;
    series += projection * std::max(1.0, D * D / 2);
  }
  return kCall + series + projection;
}

// A law given by tapes above order 0 prices itself as a model without a cost model (its Newton
// iterations and series sweeps are not counted).
double ReducedModel::rhs_cost_ns() const {
  if (law_ && order_ > 0) return default_rhs_cost_ns(*this);
  return reduced_rhs_cost_ns(system(), order_, compiled_.get());
}

// The frame form adds the frame: for the Voronets frame the tape of A and the LU of the k x k
// block with m solves, for a frame given by expressions its tape (X and dX/dq) and an n x n LU.
// Orders 0 and 1 in a Voronets frame (voronets_reduced_rate) replace the coordinate form's
// factorizations of G and M by G X_D, an m x m LDL^T and five solves with the LU of A_s: measured
// (benchmarks/frame_rhs_cost.py, loaded 2-core machine) that dense work costs about what the
// coordinate form's does on the systems of the benchmarks (the LU solves are latency-bound
// chains, the coordinate form's LDL^T sweeps vectorize), so the estimate stays the coordinate
// form's plus the frame's: 0.89-1.09 of the coordinate form's measured cost on the chains N = 8, 16,
// estimated 1.10-1.13.
double ReducedFrameModel::rhs_cost_ns() const {
  const double n = system().n(), k = system().k(), m = n - k;
  const double frame = frame_->voronets()
                           ? kInstruction * frame_->values_tape().n_instructions() + kFlop * (k * k * k / 3 + m * k * k)
                           : kInstruction * frame_->tape().n_instructions() + kFlop * (n * n * n / 3 + n * n * m);
  const bool direct = frame_->voronets() && order_ <= 1;  // no slip tape (voronets_reduced_rate)
  return reduced_rhs_cost_ns(system(), order_, direct ? nullptr : compiled_.get()) + frame;
}

}  // namespace nonholo
