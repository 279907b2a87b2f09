// An upper bound of the spectral gap delta = |lambda_(k+1)| / |lambda_k| of the friction model's
// Jacobian J (2n x 2n, moduli decreasing) that needs no eigenvalues (python/nonholo/models/validity.py).
//
// On the slow manifold J has k fast eigenvalues, about -(1/eps) those of mu A G^-1 A^T, and 2n - k
// slow ones. A similarity S = T J T^-1 into coordinates (dq, w, z) with dv = X w + F z - K dq
//   X = an orthonormal basis of ker A (the slow velocities),
//   F = G^-1 A^T L^-T, L L^T = M = A G^-1 A^T (the fast velocities, scaled so that the fast block
//       is about -(1/eps) L^T mu L, symmetric),
//   K = G^-1 A^T (A J_vv G^-1 A^T)^-1 A J_vq (removes the O(1/eps) coupling of dq into the fast
//       rows, from J itself),
// splits J into a slow block S_ss (dq, w: 2n - k) and a fast block S_ff (z: k) coupled by O(1)
// blocks. The block Gershgorin theorem (Feingold and Varga 1962, in the 2-norm, with the fast
// block scaled by beta > 0) puts every eigenvalue in
//   |lambda| <= a + beta b                      (slow: a = ||S_ss||, b = ||S_sf||), or
//   |lambda| >= s - c / beta                    (fast: s = sigma_min(S_ff), c = ||S_fs||),
// and, when the two regions are disjoint, exactly 2n - k eigenvalues in the first and k in the
// second (the count is continuous along S_diag + t S_offdiag, t in [0, 1], whose regions lie
// inside these). Then delta <= (a + beta b) / (s - c / beta), minimized over beta in closed form.
// Every norm is bounded above (each block's 2-norm from its Gram matrix's largest eigenvalue, a
// block matrix's by the 2 x 2 matrix of its blocks' norms), s below (1 / such a bound of
// ||S_ff^-1||), so the result is an upper bound of delta up to round-off (relative 1e-9 per norm
// and 1e-12 on the ratio, added). It is sharp when eps is small (the blocks' O(1) and O(1/eps) sizes
// are far apart), and +inf where it cannot separate the blocks (M or the fast block singular,
// regions overlapping): there the eigenvalues decide.
#pragma once

#include "nonholo/mechanical_system.hpp"

namespace nonholo {

// J: 2n x 2n (rows: q', v'; columns: q, v), G: n x n, A: k x n, 0 < k < n.
double spectral_gap_bound(const MatX<double>& J, const MatX<double>& G, const MatX<double>& A);

}  // namespace nonholo
