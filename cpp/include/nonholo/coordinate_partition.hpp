// Generalized coordinate partitioning (Wehage & Haug 1982) for constraints that are triangular:
// when the rows of A (k x n) can be ordered so that row i involves, besides n - k independent
// velocities, only the dependent velocities of rows 1..i (a chain of links, a train of trailers,
// a snake: each link's constraint adds one heading rate), the constrained dynamics
//   G v' = r + A^T lambda,   A v' = a
// is solved without factoring G or A G^-1 A^T. With D the dependent and I the independent
// velocities, forward substitution in A_D gives the basis Z (n x m, m = n - k) of {A x = 0},
// Z_D = -A_D^-1 A_I, Z_I = 1, and the particular solution w of A w = a (w_D = A_D^-1 a, w_I = 0);
// then v' = Z u' + w with
//   (Z^T G Z) u' = Z^T (r - G w)    (m x m),
// and lambda from the dependent rows of G v' - r = A^T lambda, back substitution in A_D^T.
// Operations: about (m + 1) k^2 / 2 + (m + 1) n^2 against the saddle-point solve's
// n^3 / 6 + (n^2 k + k^2 n) / 2 + k^3 / 6 (mechanics.hpp): the knife-edge chain N = 128 (n = 130,
// m = 2) 1.3e5 against 2.9e6.
//
// The partition is structural (from A's pattern, the same for every state and thread); at a
// state where a pivot A(rows[i], dependent[i]) is small against its row, eliminate() declines
// and the caller solves the saddle-point system instead (the same solution to rounding).
#pragma once

#include <memory>
#include <vector>

#include <Eigen/Core>

#include "nonholo/cost_constants.hpp"
#include "nonholo/linalg.hpp"

namespace nonholo {

struct CoordinatePartition {
  std::vector<int> rows;         // the constraint rows in elimination order
  std::vector<int> dependent;    // dependent[i]: the velocity solved from rows[i]
  std::vector<int> independent;  // the other n - k velocities, ascending

  // The partition of A's pattern (k x n, CSR: row a holds columns inner[outer[a] .. outer[a+1]))
  // when one exists and eliminating costs fewer operations than the saddle-point solve; null
  // otherwise. Rows are taken fewest unknown velocities first (ties: the lowest row); of a row's
  // unknown velocities the last becomes dependent and the others independent.
  static std::shared_ptr<const CoordinatePartition> find(int n, int k, const std::vector<int>& outer,
                                                         const std::vector<int>& inner);
  // Operations of eliminate() (a multiply-add counted as two, as saddle_point_flops counts).
  double flops() const;
};

// Operations of the saddle-point solve of a right-hand side: the L D L^T of G, G^-1 A^T,
// M = A G^-1 A^T and its L D L^T, and the solves (a multiply-add counted as two).
inline double saddle_point_flops(double n, double k) {
  return n * n * n / 3 + k * n * n + n * k * k + k * k * k / 3 + 2 * n * n + 4 * n * k;
}
// eliminate()'s fixed cost beyond its operations, in the same units (cost_constants.hpp).
using cost::kEliminationOverheadFlops;

// Scratch of eliminate(), reused between calls.
struct EliminationWork {
  Eigen::MatrixXd X, Z, GZ, H;
  Eigen::VectorXd u, s;
  Ldlt<double> chol_H;
};

// v' (n) and lambda (k) of G v' = r + A^T lambda, A v' = a, with G (n x n) and A (k x n)
// row-major. Returns false, writing nothing, when a pivot |A(rows[i], dependent[i])| is below
// kEliminationPivot times the largest entry of its row, or when Z^T G Z is not positive definite;
// false too (v' and lambda written, for the caller to discard) when the solution's residuals in
// both block rows exceed kEliminationResidual times their scales (accurate()). Forward substitution
// is not backward stable: a chain of 20 blades a quarter-length behind each joint amplifies the
// dependent rates about 4-fold per link, |Z| reached 4e9 and cond(Z^T G Z) 1e13-6e16 where the
// saddle-point matrix has 5e3, and v' was 6e-3 off (relative) on part of a run, which then stalled;
// the residual check sends such states to the saddle-point solve.
constexpr double kEliminationPivot = 1e-8;
constexpr double kEliminationResidual = 1e-12;
bool eliminate(const CoordinatePartition& p, const double* G, const double* A, const double* r, const double* a,
               double* vdot, double* lambda, EliminationWork& w);
// Whether (v', lambda) solves G v' - A^T lambda = r and A v' = a to kEliminationResidual times the
// scales |G| |v'| + |r| + |A^T| |lambda| and |A| |v'| + |a| (infinity norms); w.s holds G v' - r.
bool accurate(const double* G, const double* A, const double* r, const double* a, const double* vdot,
              const double* lambda, int n, int k, EliminationWork& w);

}  // namespace nonholo
