// Forward-mode dual numbers with N directions: x = v + sum_i d_i e_i, e_i e_j = 0.
// The value type S may itself be a scalar type (double, another Dual, a Taylor series),
// so derivatives of derivatives come from nesting, never from finite differences.
#pragma once

#include <array>
#include <cmath>

#include <Eigen/Core>

#include "nonholo/scalar/value.hpp"

namespace nonholo {

template <class S, int N>
struct Dual {
  S v{};
  std::array<S, N> d{};

  Dual() = default;
  Dual(double x) : v(x) {}  // NOLINT: constants convert implicitly, as in Eigen's scalars
  template <class T, class = std::enable_if_t<!std::is_same_v<T, double> && std::is_same_v<T, S>>>
  Dual(const T& x) : v(x) {}  // NOLINT

  static Dual variable(const S& x, int i) {
    Dual r(x);
    r.d[i] = S(1.0);
    return r;
  }

  Dual& operator+=(const Dual& o) { v += o.v; for (int i = 0; i < N; ++i) d[i] += o.d[i]; return *this; }
  Dual& operator-=(const Dual& o) { v -= o.v; for (int i = 0; i < N; ++i) d[i] -= o.d[i]; return *this; }
  Dual& operator*=(const Dual& o) { *this = *this * o; return *this; }
  Dual& operator/=(const Dual& o) { *this = *this / o; return *this; }
  Dual operator-() const { Dual r; r.v = -v; for (int i = 0; i < N; ++i) r.d[i] = -d[i]; return r; }
  Dual operator+() const { return *this; }

  // Chain rule for a scalar function with value f and derivative df at v.
  Dual chain(const S& f, const S& df) const {
    Dual r;
    r.v = f;
    for (int i = 0; i < N; ++i) r.d[i] = df * d[i];
    return r;
  }

  friend Dual operator+(const Dual& a, const Dual& b) { Dual r = a; r += b; return r; }
  friend Dual operator-(const Dual& a, const Dual& b) { Dual r = a; r -= b; return r; }
  friend Dual operator*(const Dual& a, const Dual& b) {
    Dual r;
    r.v = a.v * b.v;
    for (int i = 0; i < N; ++i) r.d[i] = a.d[i] * b.v + a.v * b.d[i];
    return r;
  }
  friend Dual operator/(const Dual& a, const Dual& b) {
    Dual r;
    r.v = a.v / b.v;
    for (int i = 0; i < N; ++i) r.d[i] = (a.d[i] - r.v * b.d[i]) / b.v;
    return r;
  }
  friend Dual operator+(const Dual& a, double b) { Dual r = a; r.v += b; return r; }
  friend Dual operator+(double a, const Dual& b) { return b + a; }
  friend Dual operator-(const Dual& a, double b) { Dual r = a; r.v -= b; return r; }
  friend Dual operator-(double a, const Dual& b) { Dual r = -b; r.v += a; return r; }
  friend Dual operator*(const Dual& a, double b) {
    Dual r;
    r.v = a.v * b;
    for (int i = 0; i < N; ++i) r.d[i] = a.d[i] * b;
    return r;
  }
  friend Dual operator*(double a, const Dual& b) { return b * a; }
  friend Dual operator/(const Dual& a, double b) { return a * (1.0 / b); }
  friend Dual operator/(double a, const Dual& b) { return Dual(a) / b; }

  // Comparisons act on the value only (pivoting, branch selection).
  friend bool operator<(const Dual& a, const Dual& b) { return value(a) < value(b); }
  friend bool operator>(const Dual& a, const Dual& b) { return value(a) > value(b); }
  friend bool operator<=(const Dual& a, const Dual& b) { return value(a) <= value(b); }
  friend bool operator>=(const Dual& a, const Dual& b) { return value(a) >= value(b); }
  friend bool operator==(const Dual& a, const Dual& b) { return value(a) == value(b); }
  friend bool operator!=(const Dual& a, const Dual& b) { return value(a) != value(b); }
};

template <class S, int N>
struct ValueOf<Dual<S, N>> {
  static double get(const Dual<S, N>& x) { return value(x.v); }
};

// Elementary functions: value and local derivative, composed by the chain rule.
template <class S, int N> Dual<S, N> sin(const Dual<S, N>& x) { using std::sin, std::cos; return x.chain(sin(x.v), cos(x.v)); }
template <class S, int N> Dual<S, N> cos(const Dual<S, N>& x) { using std::sin, std::cos; return x.chain(cos(x.v), -sin(x.v)); }
template <class S, int N> Dual<S, N> tan(const Dual<S, N>& x) {
  using std::tan;
  S t = tan(x.v);
  return x.chain(t, 1.0 + t * t);
}
template <class S, int N> Dual<S, N> exp(const Dual<S, N>& x) { using std::exp; S e = exp(x.v); return x.chain(e, e); }
template <class S, int N> Dual<S, N> log(const Dual<S, N>& x) { using std::log; return x.chain(log(x.v), 1.0 / x.v); }
template <class S, int N> Dual<S, N> sqrt(const Dual<S, N>& x) {
  using std::sqrt;
  S s = sqrt(x.v);
  return x.chain(s, 0.5 / s);
}
template <class S, int N> Dual<S, N> asin(const Dual<S, N>& x) {
  using std::asin, std::sqrt;
  return x.chain(asin(x.v), 1.0 / sqrt(1.0 - x.v * x.v));
}
template <class S, int N> Dual<S, N> acos(const Dual<S, N>& x) {
  using std::acos, std::sqrt;
  return x.chain(acos(x.v), -1.0 / sqrt(1.0 - x.v * x.v));
}
template <class S, int N> Dual<S, N> atan(const Dual<S, N>& x) { using std::atan; return x.chain(atan(x.v), 1.0 / (1.0 + x.v * x.v)); }
template <class S, int N> Dual<S, N> sinh(const Dual<S, N>& x) { using std::sinh, std::cosh; return x.chain(sinh(x.v), cosh(x.v)); }
template <class S, int N> Dual<S, N> cosh(const Dual<S, N>& x) { using std::sinh, std::cosh; return x.chain(cosh(x.v), sinh(x.v)); }
template <class S, int N> Dual<S, N> tanh(const Dual<S, N>& x) {
  using std::tanh;
  S t = tanh(x.v);
  return x.chain(t, 1.0 - t * t);
}
template <class S, int N> Dual<S, N> asinh(const Dual<S, N>& x) {
  using std::asinh, std::sqrt;
  return x.chain(asinh(x.v), 1.0 / sqrt(x.v * x.v + 1.0));
}
template <class S, int N> Dual<S, N> acosh(const Dual<S, N>& x) {
  using std::acosh, std::sqrt;
  return x.chain(acosh(x.v), 1.0 / sqrt(x.v * x.v - 1.0));
}
template <class S, int N> Dual<S, N> atanh(const Dual<S, N>& x) { using std::atanh; return x.chain(atanh(x.v), 1.0 / (1.0 - x.v * x.v)); }
template <class S, int N> Dual<S, N> abs(const Dual<S, N>& x) { return value(x) < 0 ? -x : x; }
template <class S, int N> Dual<S, N> atan2(const Dual<S, N>& y, const Dual<S, N>& x) {
  using std::atan2;
  Dual<S, N> r;
  r.v = atan2(y.v, x.v);
  S den = x.v * x.v + y.v * y.v;
  for (int i = 0; i < N; ++i) r.d[i] = (x.v * y.d[i] - y.v * x.d[i]) / den;
  return r;
}
template <class S, int N> Dual<S, N> pow(const Dual<S, N>& x, double r) {
  using std::pow;
  return x.chain(pow(x.v, r), r * pow(x.v, r - 1.0));
}
template <class S, int N> Dual<S, N> pow(const Dual<S, N>& x, const Dual<S, N>& y) {
  using std::log;
  return exp(y * log(x));
}

}  // namespace nonholo

namespace Eigen {
template <class S, int N>
struct NumTraits<nonholo::Dual<S, N>> : GenericNumTraits<double> {
  using Real = nonholo::Dual<S, N>;
  using NonInteger = nonholo::Dual<S, N>;
  using Nested = nonholo::Dual<S, N>;
  using Literal = nonholo::Dual<S, N>;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 1,
    ReadCost = (N + 1) * NumTraits<S>::ReadCost,
    AddCost = (N + 1) * NumTraits<S>::AddCost,
    MulCost = (2 * N + 1) * NumTraits<S>::MulCost
  };
  static inline Real epsilon() { return Real(NumTraits<double>::epsilon()); }
  static inline Real dummy_precision() { return Real(NumTraits<double>::dummy_precision()); }
  static inline Real highest() { return Real(NumTraits<double>::highest()); }
  static inline Real lowest() { return Real(NumTraits<double>::lowest()); }
  static inline int digits10() { return NumTraits<double>::digits10(); }
};
template <class S, int N, typename BinaryOp>
struct ScalarBinaryOpTraits<nonholo::Dual<S, N>, double, BinaryOp> { using ReturnType = nonholo::Dual<S, N>; };
template <class S, int N, typename BinaryOp>
struct ScalarBinaryOpTraits<double, nonholo::Dual<S, N>, BinaryOp> { using ReturnType = nonholo::Dual<S, N>; };
}  // namespace Eigen
