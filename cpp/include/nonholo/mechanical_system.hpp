// One mechanical system: metric G(q), potential V(q), constraint rows A(q) with affine part
// b(q, t), friction coefficients mu(q), generalized force F(q, v, t), with runtime parameters.
//
// The user's expressions arrive as one expression graph with inputs [q, v, t, p] and outputs
// [G, V, A, b, mu, F]. The constructor appends their derivatives (dG/dq, dV/dq, dA/dq, db/dq,
// db/dt) by forward-mode AD of the graph and compiles everything into one tape, so a single
// sweep gives all the geometry a vector field needs; derivatives of that sweep (Jacobians,
// slow-manifold coefficients) come from evaluating the same tape with dual or Taylor scalars.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "nonholo/sparse_structure.hpp"
#include "nonholo/tape/tape.hpp"
#include "nonholo/tape/tape_name.hpp"

namespace nonholo {

template <class S>
using VecX = Eigen::Matrix<S, Eigen::Dynamic, 1>;
template <class S>
using MatX = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
template <class S>
using RowMatMap = Eigen::Map<const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <class S>
using VecMap = Eigen::Map<const VecX<S>>;

// Offsets of each block in the compiled tapes' outputs. The dynamics tape computes the blocks
// up to `dynamics` (what the nonholonomic and friction vector fields need), the full tape
// also the derivative blocks (for vakonomic, slow-manifold and point queries).
struct CoordinatePartition;  // coordinate_partition.hpp

struct GeometryLayout {
  int n = 0, k = 0;
  int G = 0, V = 0, A = 0, b = 0, mu = 0, F = 0;        // the user's expressions
  int r = 0, a = 0;                                      // F - c(q, v) - dV and the constraint term
  int dynamics = 0;                                      // end of the dynamics tape's outputs
  int dG = 0, dV = 0, dA = 0, db_dq = 0, db_dt = 0;      // derivatives, by AD
  int total = 0;
  // The projection tape appends to the dynamics blocks the derivatives along the velocity input
  // v: dG_v = sum_l dG/dq^l v^l (n x n) and dA_v = sum_l dA/dq^l v^l (k x n).
  int dG_v = 0, dA_v = 0;
  int projection_total = 0;
  bool definite_metric = true;  // false: a regular but indefinite Lagrangian (LDL^T with any sign)
  // Triangular constraints solved by elimination (coordinate_partition.hpp), where that pays;
  // null otherwise (and for an indefinite metric).
  std::shared_ptr<const CoordinatePartition> partition;
  int base_outputs() const { return n * n + 1 + k * n + k + k * k + n; }
  static GeometryLayout make(int n, int k);
};

// A derivative block dX/dq^l (X a matrix or a vector) by its structural nonzeros, direction by
// direction: those along q^l are the entries e = start[l] .. start[l + 1] - 1, at (row[e], col[e])
// of dX/dq^l, with their values at offset + e in the Jacobian tape's outputs. A chain's metric
// depends on each angle in one row and one column: 2n of the n^2 entries of dG/dq^l.
struct DerivativePattern {
  int offset = 0;
  std::vector<int> start, row, col;
  int nonzeros() const { return start.empty() ? 0 : start.back(); }
};

// The Jacobian tape's outputs: the dynamics blocks (GeometryLayout, up to `dynamics`), the
// nonzeros of dG/dq, dA/dq, db/dq and dmu/dq, then dr/dq, dr/dv (n x n), da/dq, da/dv (k x n),
// row-major. What the models' implicit Jacobians (implicit_jacobian.hpp) read, in O(nonzeros)
// instead of the n^3 entries of the dense blocks.
struct JacobianLayout {
  DerivativePattern dG, dA, db, dmu;
  int dr_dq = 0, dr_dv = 0, da_dq = 0, da_dv = 0, total = 0;
};

class MechanicalSystem;

// The tape evaluated at one point (t, q, v): views of every block, by name.
template <class S>
class Geometry {
 public:
  const GeometryLayout* layout = nullptr;
  const JacobianLayout* jacobian = nullptr;  // set by evaluate_jacobian_blocks
  std::vector<S> in, out, work;

  // Scratch of the velocity part of the split projection (evaluate_velocity_part).
  std::vector<S> velocity_in, velocity_out;

  int n() const { return layout->n; }
  int k() const { return layout->k; }
  RowMatMap<S> G() const { return {out.data() + layout->G, n(), n()}; }
  const S& V() const { return out[layout->V]; }
  RowMatMap<S> A() const { return {out.data() + layout->A, k(), n()}; }
  VecMap<S> b() const { return {out.data() + layout->b, k()}; }
  RowMatMap<S> mu() const { return {out.data() + layout->mu, k(), k()}; }
  // F: NaN from the tapes other than the full one when r is given (VelocityTerms::Given).
  VecMap<S> F() const { return {out.data() + layout->F, n()}; }
  // r = F - c(q, v) - dV: the applied generalized force, c the Coriolis/centrifugal covector.
  VecMap<S> r() const { return {out.data() + layout->r, n()}; }
  // a = db/dq v + db/dt - (dA/dq . v) v: right-hand side of the differentiated constraint A v' = a.
  VecMap<S> a() const { return {out.data() + layout->a, k()}; }
  // dG(l) = dG/dq^l, dA(l) = dA/dq^l; db_dq(a, l) = db_a/dq^l.
  RowMatMap<S> dG(int l) const { return {out.data() + layout->dG + l * n() * n(), n(), n()}; }
  VecMap<S> dV() const { return {out.data() + layout->dV, n()}; }
  RowMatMap<S> dA(int l) const { return {out.data() + layout->dA + l * k() * n(), k(), n()}; }
  RowMatMap<S> db_dq() const { return {out.data() + layout->db_dq, k(), n()}; }
  VecMap<S> db_dt() const { return {out.data() + layout->db_dt, k()}; }
  // Jacobian tape only (JacobianLayout): the values of a derivative block's nonzeros, and
  // dr_dq(i, l) = dr_i/dq^l, and so on.
  const S* values(const DerivativePattern& d) const { return out.data() + d.offset; }
  RowMatMap<S> dr_dq() const { return {out.data() + jacobian->dr_dq, n(), n()}; }
  RowMatMap<S> dr_dv() const { return {out.data() + jacobian->dr_dv, n(), n()}; }
  RowMatMap<S> da_dq() const { return {out.data() + jacobian->da_dq, k(), n()}; }
  RowMatMap<S> da_dv() const { return {out.data() + jacobian->da_dv, k(), n()}; }
  // Projection tape only: the derivatives of G and A along the evaluated velocity v.
  RowMatMap<S> dG_v() const { return {out.data() + layout->dG_v, n(), n()}; }
  RowMatMap<S> dA_v() const { return {out.data() + layout->dA_v, k(), n()}; }
};

// The sparse tape evaluated at one point: the nonzeros of G, A, mu and b, r, a (SparseLayout).
template <class S>
struct SparseGeometry {
  const SparseLayout* layout = nullptr;
  std::vector<S> in, out, work;
  const S* G() const { return out.data() + layout->G; }
  const S* A() const { return out.data() + layout->A; }
  const S* b() const { return out.data() + layout->b; }
  const S* mu() const { return out.data() + layout->mu; }
  const S* r() const { return out.data() + layout->r; }
  const S* a() const { return out.data() + layout->a; }
};

// How the dynamics and projection tapes compute c(q, v) and (dA/dq . v) v (equal to rounding):
// from the partial derivatives dG/dq^l, dA/dq^l, by one forward and one backward sweep, or
// the sweeps where they give a tenth fewer interpreted operations at least (the default). Given: the base graph
// has n more outputs after F, the applied force r = F - c(q, v) - dV itself in a cheaper form
// (Kane's equations: the loads minus the inertia forces), which the tapes use for r.
enum class VelocityTerms { Cheaper, Partials, Sweeps, Given };

class MechanicalSystem {
 public:
  // `base` has inputs [q (n), v (n), t, p (n_params)] and outputs [G (n*n, row-major), V,
  // A (k*n, row-major), b (k), mu (k*k), F (n)].
  MechanicalSystem(int n, int k, int n_params, ExprGraph base, bool definite_metric = true,
                   VelocityTerms velocity_terms = VelocityTerms::Cheaper);

  int n() const { return layout_.n; }
  int k() const { return layout_.k; }
  int n_params() const { return n_params_; }
  int n_inputs() const { return 2 * n() + 1 + n_params_; }
  // Every tape of the system reads its inputs in this order: (q, v, t, p).
  template <class S, class Par>
  void pack_inputs(const S& t, const S* q, const S* v, const Par* p, S* in) const {
    const int n = this->n();
    for (int i = 0; i < n; ++i) {
      in[i] = q[i];
      in[n + i] = v[i];
    }
    in[2 * n] = TraceHooks<S>::time(t);  // a fused trace's time input (value.hpp)
    for (int i = 0; i < n_params_; ++i) in[2 * n + 1 + i] = S(p[i]);
  }
  int time_input() const { return 2 * n(); }
  const GeometryLayout& layout() const { return layout_; }
  // The tapes are built when first used (thread-safe) for systems of more than kEagerCoordinates
  // coordinates, at construction for smaller ones: the full and Jacobian tapes hold dG/dq (n^3
  // entries), which a large system's models (the sparse ones, or DOP853 on the dense
  // nonholonomic model) never evaluate. Large systems compute c(q, v) and (dA/dq . v) v by the
  // sweeps (VelocityTerms::Sweeps), whose graphs grow with G's nonzeros, not with n^3.
  static constexpr int kEagerCoordinates = 40;
  const Tape& tape() const { return derivatives().tape; }
  const Tape& dynamics_tape() const { return dynamics().tape; }
  // Outputs in the layout up to mu, with only A and b computed (G and V read as zero): what
  // the drift projection needs, and its directional derivative by one dual direction.
  const Tape& constraint_tape() const { return dynamics().constraints; }
  const Tape& jacobian_tape() const { return derivatives().jacobian; }
  const JacobianLayout& jacobian_layout() const { return derivatives().jacobian_layout; }
  // The dynamics blocks and dG_v, dA_v along the velocity input: what the slow-manifold
  // projection (slow_manifold.hpp) needs, one forward sweep of about the dynamics tape's cost
  // (c(q, v) already holds every dG/dq^l v^l), instead of the full tape's n^3 entries of dG.
  const Tape& projection_tape() const { return derivatives().projection; }
  const ExprGraph& base_graph() const { return base_; }

  // The sparse tape (SparseLayout: G, A, mu by their nonzeros, then b, r, a; r and a by the
  // sweeps) and the sparse constraint tape (A's nonzeros, b), built when first asked for.
  const SparseLayout& sparse_layout() const { return sparse().layout; }
  const Tape& sparse_tape() const { return sparse().tape; }
  const Tape& sparse_constraint_tape() const { return sparse().constraints; }
  // The inputs among (q, v) each output of the sparse tape depends on (sorted).
  const std::vector<std::vector<int>>& sparse_output_inputs() const { return sparse().output_inputs; }
  template <class S, class Par>
  void evaluate_sparse(double t, const S* q, const S* v, const Par* p, SparseGeometry<S>& g,
                       bool constraints_only = false) const {
    const Sparse& sp = sparse();
    const Tape& tape = constraints_only ? sp.constraints : sp.tape;
    g.layout = &sp.layout;
    g.in.resize(n_inputs());
    g.out.resize(constraints_only ? sp.layout.total : tape.n_outputs());
    pack_inputs(S(t), q, v, p, g.in.data());
    if (!constraints_only) {
      tape.eval(g.in.data(), g.out.data(), g.work);
      return;
    }
    // the constraint tape's outputs (A, b) sit at their places in the layout
    tape.eval(g.in.data(), g.out.data() + sp.layout.A, g.work);
  }

  bool force_depends_on_velocity() const { return force_velocity_; }
  // mu depends on q (it never depends on v or t): false when it is a function of the parameters
  // only, so that one factorization serves a whole run.
  bool friction_depends_on_position() const { return friction_position_; }
  bool force_depends_on_time() const { return force_time_; }
  bool affine_depends_on_time() const { return affine_time_; }
  bool has_affine() const { return has_affine_; }
  bool definite_metric() const { return layout_.definite_metric; }
  // r = F - c(q, v) - dV given by the base graph (Kane's equations): F is computed by the full
  // tape only.
  bool applied_force_given() const { return velocity_terms_ == VelocityTerms::Given; }
  // True when the dynamics and projection tapes compute c(q, v) and (dA/dq . v) v by one forward
  // and one backward sweep (fewer operations for this system), false when from dG/dq^l, dA/dq^l.
  bool velocity_sweeps() const { return dynamics().sweeps; }

  // All blocks at (t, q, v). The parameters p are doubles, or of the scalar type S when
  // derivatives with respect to them are wanted (sensitivities).
  template <class S, class P>
  void evaluate(double t, const S* q, const S* v, const P* p, Geometry<S>& g) const {
    evaluate_at(S(t), q, v, p, g, tape());
  }
  // Only the blocks G .. a (the cheaper tape of the nonholonomic and friction vector fields).
  template <class S, class P>
  void evaluate_dynamics(double t, const S* q, const S* v, const P* p, Geometry<S>& g) const {
    evaluate_at(S(t), q, v, p, g, dynamics_tape());
  }
  // The dynamics blocks and the derivatives of G, A, b, mu, r and a (jacobian_tape, laid out
  // as jacobian_layout()): what the models' Jacobians by implicit differentiation need, in doubles.
  void evaluate_jacobian_blocks(double t, const double* q, const double* v, const double* p,
                                Geometry<double>& g) const {
    evaluate_at(t, q, v, p, g, jacobian_tape());
    g.jacobian = &jacobian_layout();
  }
  // A and b only (G, V and everything after b are not computed).
  template <class S>
  void evaluate_constraints(double t, const S* q, const S* v, const double* p, Geometry<S>& g) const {
    evaluate_at(S(t), q, v, p, g, constraint_tape());
  }
  // The dynamics blocks, with a time of the scalar type.
  template <class S, class Par>
  void evaluate_dynamics_at(const S& t, const S* q, const S* v, const Par* p, Geometry<S>& g) const {
    evaluate_at(t, q, v, p, g, dynamics_tape());
  }
  // The dynamics blocks and dG_v, dA_v (projection_tape), with a time of the scalar type.
  template <class S, class Par>
  void evaluate_projection_at(const S& t, const S* q, const S* v, const Par* p, Geometry<S>& g) const {
    evaluate_at(t, q, v, p, g, projection_tape());
  }
  // The projection tape split in two (the order-1 reduced model, which needs the geometry at
  // (q, u) and at (q, v) with the same q): evaluate_split_base gives every projection block at
  // (t, q, u) and keeps the values of the nodes that do not depend on the velocity but feed
  // ones that do; evaluate_velocity_part then recomputes, at (t, q, v), only the nodes that
  // depend on the velocity (c(q, v), a(q, v), dG_v, dA_v, F when it depends on v), reading
  // the kept values: the projection blocks at (t, q, v) for the cost of the velocity part.
  template <class S, class Par>
  void evaluate_split_base(const S& t, const S* q, const S* u, const Par* p, Geometry<S>& g) const {
    evaluate_at(t, q, u, p, g, split_base_tape());
  }
  template <class S, class Par>
  void evaluate_velocity_part(const S& t, const S* q, const S* v, const Par* p, Geometry<S>& g) const;
  const Tape& split_base_tape() const { return derivatives().split_base; }
  const Tape& velocity_part_tape() const { return derivatives().velocity_part; }

  // The tapes by name (what model.compile() translates to C): Dynamics, Full (tape()),
  // Constraints, Jacobian, Projection, SplitBase, VelocityPart. tape_named throws InputError
  // naming the choices for any other name.
  static const std::vector<TapeName>& tape_names();
  const Tape& tape_named(TapeName name) const;

  // All blocks, with a time that carries derivatives (Taylor expansions in t); the parameters
  // may be plain numbers or of the scalar type (traced into a graph, slow_manifold_graph.hpp).
  template <class S, class Par>
  void evaluate_at(const S& t, const S* q, const S* v, const Par* p, Geometry<S>& g) const {
    evaluate_at(t, q, v, p, g, tape());
  }

 private:
  template <class S, class Par>
  void evaluate_at(const S& t, const S* q, const S* v, const Par* p, Geometry<S>& g, const Tape& tape) const;
  void append_applied_force_and_constraint_term(GraphBuilder& b, const std::vector<int>& map,
                                                const std::vector<std::vector<int>>& deriv,
                                                std::vector<int>& outputs, std::vector<int>& velocity_derivatives) const;
  void append_velocity_terms(GraphBuilder& b, const std::vector<int>& map, std::vector<int>& outputs,
                             std::vector<int>& velocity_derivatives) const;
  // The tapes by stage, each built once: the dynamics stage (dynamics and constraint tapes), the
  // derivative stage (full, Jacobian, projection and its split), the sparse stage.
  struct Dynamics {
    Tape tape, constraints;
    bool sweeps = false;  // c(q, v) and (dA/dq . v) v by the sweeps
  };
  struct Derivatives {
    Tape tape, jacobian, projection, split_base, velocity_part;
    JacobianLayout jacobian_layout;
    std::vector<int> velocity_part_outputs;  // projection output index of each velocity-part output
  };
  struct Sparse {
    SparseLayout layout;
    Tape tape, constraints;
    std::vector<std::vector<int>> output_inputs;
  };
  const Dynamics& dynamics() const;
  const Derivatives& derivatives() const;
  const Sparse& sparse() const;
  // Every tape at once, as systems of at most kEagerCoordinates coordinates are built: r and a
  // by the partial derivatives or by the sweeps, whichever is cheaper (VelocityTerms).
  void build_eager(VelocityTerms velocity_terms);
  Dynamics build_dynamics() const;
  Derivatives build_derivatives() const;
  Sparse build_sparse() const;
  // The graph of the base outputs and of r and a by the sweeps, with the nodes of Gdot, Adot.
  std::vector<int> swept_outputs(GraphBuilder& builder, const std::vector<int>& map,
                                 std::vector<int>& velocity_derivatives) const;
  std::vector<std::vector<int>> derivatives_in_q_and_t(GraphBuilder& builder, const std::vector<int>& map) const;
  void fill_derivative_outputs(const std::vector<std::vector<int>>& deriv, GraphBuilder& builder,
                               std::vector<int>& outputs) const;
  std::vector<int> constraint_outputs(const std::vector<int>& outputs, GraphBuilder& builder) const;
  void hide_force(std::vector<int>& outputs, GraphBuilder& builder) const;
  Tape build_jacobian_tape(GraphBuilder& b, const std::vector<int>& outputs, JacobianLayout& layout) const;
  void build_split_projection(Derivatives& d) const;

  GeometryLayout layout_;
  int n_params_;
  ExprGraph base_;
  VelocityTerms velocity_terms_;
  mutable std::once_flag dynamics_once_, derivatives_once_, sparse_once_;
  mutable std::unique_ptr<Dynamics> dynamics_;
  mutable std::unique_ptr<Derivatives> derivatives_;
  mutable std::unique_ptr<Sparse> sparse_;
  bool force_velocity_ = false, force_time_ = false, affine_time_ = false, has_affine_ = false;
  bool friction_position_ = false;
};

template <class S, class Par>
void MechanicalSystem::evaluate_at(const S& t, const S* q, const S* v, const Par* p, Geometry<S>& g,
                                  const Tape& tape) const {
  g.layout = &layout_;
  g.in.resize(n_inputs());
  // grown, never shrunk: a model's right-hand sides (the dynamics tape) and Jacobians (the
  // Jacobian tape, n^3 entries of dG/dq) share one geometry, and growing back after a shrink
  // zeroes the difference (35 MB for the chain of 128 blades) before the tape overwrites it
  if (g.out.size() < static_cast<std::size_t>(tape.n_outputs())) g.out.resize(tape.n_outputs());
  pack_inputs(t, q, v, p, g.in.data());
  tape.eval(g.in.data(), g.out.data(), g.work);
}

template <class S, class Par>
void MechanicalSystem::evaluate_velocity_part(const S& t, const S* q, const S* v, const Par* p, Geometry<S>& g) const {
  const Derivatives& d = derivatives();
  const int base = n_inputs(), kept = d.velocity_part.n_inputs() - base;
  g.velocity_in.resize(d.velocity_part.n_inputs());
  g.velocity_out.resize(d.velocity_part.n_outputs());
  pack_inputs(t, q, v, p, g.velocity_in.data());
  for (int i = 0; i < kept; ++i) g.velocity_in[base + i] = g.out[layout_.projection_total + i];
  d.velocity_part.eval(g.velocity_in.data(), g.velocity_out.data(), g.work);
  for (std::size_t j = 0; j < d.velocity_part_outputs.size(); ++j) g.out[d.velocity_part_outputs[j]] = g.velocity_out[j];
  for (int i = 0; i < layout_.n; ++i) g.in[layout_.n + i] = v[i];  // the point of the blocks, for messages
}

}  // namespace nonholo
