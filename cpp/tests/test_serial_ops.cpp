// The compiled serial vector operations (serial_ops.hpp) against SUNDIALS' own serial vector:
// every operation, with the coefficients that select each of the serial code's special cases
// (+-1, a == b, a == -b, aliased outputs), gives the same bits; clones keep the operations; the
// fused operations CVODE calls (SUNDIALS' fallbacks, one compiled call per vector) give the same
// bits as with the serial library's own operations.
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <nvector/nvector_serial.h>

#include "check.hpp"
#include "nonholo/sundials/compat.hpp"
#include "nonholo/sundials/handles.hpp"
#include "nonholo/sundials/serial_ops.hpp"

namespace sun = nonholo::sun;

namespace {

constexpr int kN = 13;  // odd, so that no vectorized loop covers the whole length

struct Pair {
  sun::VectorPtr ours, theirs;
};

Pair make_pair(SUNContext ctx, std::mt19937& rng, bool with_zero = false) {
  std::normal_distribution<double> normal;
  Pair p{sun::VectorPtr(N_VNew_Serial(kN, ctx)), sun::VectorPtr(N_VNew_Serial(kN, ctx))};
  sun::use_compiled_ops(p.ours.get());
  for (int i = 0; i < kN; ++i) {
    const double v = with_zero && i % 4 == 1 ? 0.0 : normal(rng) * std::pow(10.0, (i % 5) - 2);
    NV_Ith_S(p.ours.get(), i) = v;
    NV_Ith_S(p.theirs.get(), i) = v;
  }
  return p;
}

bool same(const Pair& p) {
  return std::memcmp(N_VGetArrayPointer(p.ours.get()), N_VGetArrayPointer(p.theirs.get()), sizeof(double) * kN) == 0;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

}  // namespace

int main() {
  SUNContext raw = nullptr;
  sun::create_context(&raw);
  sun::ContextPtr ctx(raw);
  std::mt19937 rng(7);

  {  // the operations are installed and cloned
    Pair p = make_pair(ctx.get(), rng);
    NONHOLO_CHECK(p.ours->ops->nvlinearsum != p.theirs->ops->nvlinearsum);
    sun::VectorPtr clone(N_VClone(p.ours.get()));
    NONHOLO_CHECK(clone->ops->nvlinearsum == p.ours->ops->nvlinearsum);
  }

  // z = a x + b y, every special case, with z separate and aliased to x or to y
  const double coefficients[] = {1.0, -1.0, 0.5, -0.5, 2.0, -3.0, 0.0};
  for (double a : coefficients)
    for (double b : coefficients)
      for (int alias = 0; alias < 3; ++alias) {
        Pair x = make_pair(ctx.get(), rng), y = make_pair(ctx.get(), rng), z = make_pair(ctx.get(), rng);
        Pair& out = alias == 0 ? z : (alias == 1 ? x : y);
        N_VLinearSum(a, x.ours.get(), b, y.ours.get(), out.ours.get());
        N_VLinearSum(a, x.theirs.get(), b, y.theirs.get(), out.theirs.get());
        NONHOLO_CHECK(same(out));
      }

  for (double c : coefficients) {
    for (int alias = 0; alias < 2; ++alias) {
      Pair x = make_pair(ctx.get(), rng), z = make_pair(ctx.get(), rng);
      Pair& out = alias == 0 ? z : x;
      N_VScale(c, x.ours.get(), out.ours.get());
      N_VScale(c, x.theirs.get(), out.theirs.get());
      NONHOLO_CHECK(same(out));
    }
    Pair x = make_pair(ctx.get(), rng), z = make_pair(ctx.get(), rng);
    N_VConst(c, z.ours.get());
    N_VConst(c, z.theirs.get());
    NONHOLO_CHECK(same(z));
    N_VAddConst(x.ours.get(), c, z.ours.get());
    N_VAddConst(x.theirs.get(), c, z.theirs.get());
    NONHOLO_CHECK(same(z));
    N_VCompare(std::abs(c), x.ours.get(), z.ours.get());
    N_VCompare(std::abs(c), x.theirs.get(), z.theirs.get());
    NONHOLO_CHECK(same(z));
  }

  {  // element-wise operations and norms
    Pair x = make_pair(ctx.get(), rng), y = make_pair(ctx.get(), rng), z = make_pair(ctx.get(), rng);
    Pair w = make_pair(ctx.get(), rng);
    N_VAbs(w.ours.get(), w.ours.get());
    N_VAbs(w.theirs.get(), w.theirs.get());
    NONHOLO_CHECK(same(w));
    N_VProd(x.ours.get(), y.ours.get(), z.ours.get());
    N_VProd(x.theirs.get(), y.theirs.get(), z.theirs.get());
    NONHOLO_CHECK(same(z));
    N_VDiv(x.ours.get(), y.ours.get(), z.ours.get());
    N_VDiv(x.theirs.get(), y.theirs.get(), z.theirs.get());
    NONHOLO_CHECK(same(z));
    N_VInv(x.ours.get(), z.ours.get());
    N_VInv(x.theirs.get(), z.theirs.get());
    NONHOLO_CHECK(same(z));
    NONHOLO_CHECK(same_bits(N_VWrmsNorm(x.ours.get(), w.ours.get()), N_VWrmsNorm(x.theirs.get(), w.theirs.get())));
    NONHOLO_CHECK(same_bits(N_VMaxNorm(x.ours.get()), N_VMaxNorm(x.theirs.get())));
    NONHOLO_CHECK(same_bits(N_VMin(x.ours.get()), N_VMin(x.theirs.get())));
    // the norm itself: sqrt(mean((x w)^2))
    double sum = 0.0;
    for (int i = 0; i < kN; ++i) sum += std::pow(NV_Ith_S(x.theirs.get(), i) * NV_Ith_S(w.theirs.get(), i), 2);
    NONHOLO_CHECK(std::abs(N_VWrmsNorm(x.ours.get(), w.ours.get()) - std::sqrt(sum / kN)) <= 1e-15 * std::sqrt(sum));
    // the inverse test with and without zeros
    Pair nz = make_pair(ctx.get(), rng), zz = make_pair(ctx.get(), rng, true);
    Pair r1 = make_pair(ctx.get(), rng), r2 = make_pair(ctx.get(), rng);
    NONHOLO_CHECK_EQ(N_VInvTest(nz.ours.get(), r1.ours.get()), N_VInvTest(nz.theirs.get(), r1.theirs.get()));
    NONHOLO_CHECK(same(r1));
    NONHOLO_CHECK_EQ(N_VInvTest(zz.ours.get(), r2.ours.get()), SUNFALSE);
    NONHOLO_CHECK_EQ(N_VInvTest(zz.theirs.get(), r2.theirs.get()), SUNFALSE);
    NONHOLO_CHECK(same(r2));
  }

  // fused: z = sum c_i X_i for 1..5 terms, z separate or X_0 (with c_0 = 1 or not): the fallback
  // is one scale and linear sums
  for (int nvec = 1; nvec <= 5; ++nvec)
    for (int mode = 0; mode < 3; ++mode) {
      std::vector<Pair> X;
      for (int i = 0; i < nvec; ++i) X.push_back(make_pair(ctx.get(), rng));
      Pair z = make_pair(ctx.get(), rng);
      std::vector<double> c = {mode == 1 ? 1.0 : 0.75, -1.0, 1.0, 0.3, -2.5};
      Pair& out = mode == 0 ? z : X[0];
      std::vector<N_Vector> xo, xt;
      for (auto& p : X) {
        xo.push_back(p.ours.get());
        xt.push_back(p.theirs.get());
      }
      NONHOLO_CHECK_EQ(N_VLinearCombination(nvec, c.data(), xo.data(), out.ours.get()), 0);
      NONHOLO_CHECK_EQ(N_VLinearCombination(nvec, c.data(), xt.data(), out.theirs.get()), 0);
      NONHOLO_CHECK(same(out));
    }
  // fused: Z_i = a_i x + Y_i, Z separate or Y itself
  for (int nvec = 1; nvec <= 4; ++nvec)
    for (int aliased = 0; aliased < 2; ++aliased) {
      Pair x = make_pair(ctx.get(), rng);
      std::vector<Pair> Y, Z;
      for (int i = 0; i < nvec; ++i) {
        Y.push_back(make_pair(ctx.get(), rng));
        Z.push_back(make_pair(ctx.get(), rng));
      }
      std::vector<double> a = {1.0, -1.0, 0.25, -4.0};
      std::vector<N_Vector> yo, yt, zo, zt;
      for (int i = 0; i < nvec; ++i) {
        yo.push_back(Y[i].ours.get());
        yt.push_back(Y[i].theirs.get());
        zo.push_back(Z[i].ours.get());
        zt.push_back(Z[i].theirs.get());
      }
      N_Vector* out_o = aliased ? yo.data() : zo.data();
      N_Vector* out_t = aliased ? yt.data() : zt.data();
      NONHOLO_CHECK_EQ(N_VScaleAddMulti(nvec, a.data(), x.ours.get(), yo.data(), out_o), 0);
      NONHOLO_CHECK_EQ(N_VScaleAddMulti(nvec, a.data(), x.theirs.get(), yt.data(), out_t), 0);
      for (int i = 0; i < nvec; ++i) NONHOLO_CHECK(same(aliased ? Y[i] : Z[i]));
    }

  if (nonholo::testing::failures == 0) std::cout << "test_serial_ops: all checks passed" << std::endl;
  return nonholo::testing::failures;
}
