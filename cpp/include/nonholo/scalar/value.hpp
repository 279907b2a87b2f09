// value(x): the plain double behind any scalar type (double, Dual, Taylor series).
// Used for pivoting, positivity checks and error messages, never for arithmetic.
#pragma once

#include <cmath>

namespace nonholo {

template <class S>
struct ValueOf;

template <>
struct ValueOf<double> {
  static double get(double x) { return x; }
};

template <class S>
inline double value(const S& x) {
  return ValueOf<S>::get(x);
}

// Integer power by repeated squaring: exact for every scalar type, no log/exp.
template <class S>
S powi(const S& x, int n) {
  if (n < 0) return S(1.0) / powi(x, -n);
  S result(1.0), base = x;
  bool first = true;
  while (n > 0) {
    if (n & 1) {
      result = first ? base : result * base;
      first = false;
    }
    n >>= 1;
    if (n > 0) base = base * base;
  }
  return result;
}

// What value-dependent code tells a tracing scalar (scalar/traced.hpp, fused_rhs.hpp), so that a
// branch-free replay can test at each evaluation what the code tested once: the time every tape
// reads; the pivots of an LDL^T (each against the diagonal); the row order a partial-pivoting LU
// chose (for each column j the candidates LU(i, j), i >= j, the chosen pivot first); values that
// must stay bounded in magnitude. No-ops for every other scalar type.
template <class S>
struct TraceHooks {
  static constexpr bool kTracing = false;
  static const S& time(const S& t) { return t; }
  static void pivots(const S*, const S*, int, bool, bool) {}
  static void lu_pivots(const S*, int) {}
  static void bounded(const S*, int, double) {}
};

inline double sign(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }

}  // namespace nonholo
