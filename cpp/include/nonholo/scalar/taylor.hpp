// Truncated Taylor series for automatic differentiation of any order.
//
// UTaylor<S>: univariate series sum_k c_k tau^k, used to get the Taylor coefficients
// f^(k)(x0)/k! of the elementary functions by the classical recurrences (Griewank-Walther,
// "Evaluating Derivatives", ch. 13).
//
// Taylor2<S>: bivariate series sum_{a+b <= D} c_ab eps^a t^b, truncated at total degree D
// (runtime, at most kMaxSeriesDegree). The slow-manifold expansion is computed in this type:
// eps is the friction scale, t the time along the slow trajectory (see slow_manifold.hpp).
// A function of a series is f(x) = sum_k f^(k)(x0)/k! (x - x0)^k, evaluated by Horner's rule.
#pragma once

#include <array>
#include <cmath>

#include <Eigen/Core>

#include "nonholo/scalar/value.hpp"

namespace nonholo {

constexpr int kMaxSeriesDegree = 16;
constexpr int series_size(int degree) { return (degree + 1) * (degree + 2) / 2; }
// Coefficients are stored by total degree, then by the power of eps.
constexpr int series_index(int a, int b) { return (a + b) * (a + b + 1) / 2 + a; }

// ---------------------------------------------------------------------------------------------
template <class S>
struct UTaylor {
  int deg = 0;
  std::array<S, kMaxSeriesDegree + 1> c{};

  static UTaylor identity(const S& x0, int deg) {  // x0 + tau
    UTaylor u;
    u.deg = deg;
    for (int k = 0; k <= deg; ++k) u.c[k] = S(0.0);
    u.c[0] = x0;
    if (deg > 0) u.c[1] = S(1.0);
    return u;
  }
  UTaylor zeros() const {
    UTaylor r;
    r.deg = deg;
    for (int k = 0; k <= deg; ++k) r.c[k] = S(0.0);
    return r;
  }
  friend UTaylor operator*(const UTaylor& x, const UTaylor& y) {
    UTaylor r = x.zeros();
    for (int k = 0; k <= r.deg; ++k)
      for (int j = 0; j <= k; ++j) r.c[k] += x.c[j] * y.c[k - j];
    return r;
  }
  friend UTaylor operator+(const UTaylor& x, const S& a) { UTaylor r = x; r.c[0] += a; return r; }
  friend UTaylor operator*(const S& a, const UTaylor& x) {
    UTaylor r = x;
    for (int k = 0; k <= r.deg; ++k) r.c[k] = a * x.c[k];
    return r;
  }
  // y = x^r for a constant exponent: y_k = (1/(k x_0)) sum_{j=1..k} (r j - (k - j)) x_j y_{k-j}
  UTaylor pow(double r) const {
    using std::pow;
    UTaylor y = zeros();
    y.c[0] = pow(c[0], r);
    for (int k = 1; k <= deg; ++k) {
      S s(0.0);
      for (int j = 1; j <= k; ++j) s += (r * j - (k - j)) * c[j] * y.c[k - j];
      y.c[k] = s / (k * c[0]);
    }
    return y;
  }
  // sum_k c_k tau^k / ... : the antiderivative with constant term f0.
  UTaylor integral(const S& f0) const {
    UTaylor r = zeros();
    r.c[0] = f0;
    for (int k = 1; k <= deg; ++k) r.c[k] = c[k - 1] / double(k);
    return r;
  }
};

// Taylor coefficients of f(x0 + tau), k = 0..deg, for each elementary function.
namespace series_coefficients {

template <class S> UTaylor<S> exp(const S& x0, int deg) {
  using std::exp;
  UTaylor<S> r;
  r.deg = deg;
  r.c[0] = exp(x0);
  for (int k = 1; k <= deg; ++k) r.c[k] = r.c[k - 1] / double(k);
  return r;
}
template <class S> UTaylor<S> log(const S& x0, int deg) {
  using std::log;
  UTaylor<S> r;
  r.deg = deg;
  r.c[0] = log(x0);
  S inv = 1.0 / x0, p = inv;
  for (int k = 1; k <= deg; ++k) {
    r.c[k] = ((k % 2) ? 1.0 : -1.0) / double(k) * p;
    p = p * inv;
  }
  return r;
}
// sin and cos together: derivatives cycle through sin, cos, -sin, -cos.
template <class S> void sincos(const S& x0, int deg, UTaylor<S>& s, UTaylor<S>& c) {
  using std::sin, std::cos;
  S sv = sin(x0), cv = cos(x0);
  s.deg = c.deg = deg;
  double fact = 1.0;
  for (int k = 0; k <= deg; ++k) {
    if (k > 0) fact *= k;
    switch (k % 4) {
      case 0: s.c[k] = sv / fact; c.c[k] = cv / fact; break;
      case 1: s.c[k] = cv / fact; c.c[k] = -sv / fact; break;
      case 2: s.c[k] = -sv / fact; c.c[k] = -cv / fact; break;
      default: s.c[k] = -cv / fact; c.c[k] = sv / fact; break;
    }
  }
}
template <class S> void sinhcosh(const S& x0, int deg, UTaylor<S>& s, UTaylor<S>& c) {
  using std::sinh, std::cosh;
  S sv = sinh(x0), cv = cosh(x0);
  s.deg = c.deg = deg;
  double fact = 1.0;
  for (int k = 0; k <= deg; ++k) {
    if (k > 0) fact *= k;
    s.c[k] = (k % 2 ? cv : sv) / fact;
    c.c[k] = (k % 2 ? sv : cv) / fact;
  }
}
template <class S> UTaylor<S> pow(const S& x0, double r, int deg) { return UTaylor<S>::identity(x0, deg).pow(r); }

// Quotient of two univariate series (for tan and tanh).
template <class S> UTaylor<S> divide(const UTaylor<S>& a, const UTaylor<S>& b) {
  UTaylor<S> r = a.zeros();
  for (int k = 0; k <= a.deg; ++k) {
    S s = a.c[k];
    for (int j = 1; j <= k; ++j) s -= b.c[j] * r.c[k - j];
    r.c[k] = s / b.c[0];
  }
  return r;
}

// f(x0 + tau) = f(x0) + integral of g(x0 + tau) with g = f' given as a power of a quadratic:
// f' = sign * (alpha + beta u^2)^r, u = x0 + tau (covers asin, acos, atan, asinh, acosh, atanh).
template <class S> UTaylor<S> integral_of_quadratic_power(const S& f0, const S& x0, double alpha, double beta,
                                                          double r, double sign, int deg) {
  UTaylor<S> u = UTaylor<S>::identity(x0, deg);
  UTaylor<S> q = (S(beta) * (u * u)) + S(alpha);
  UTaylor<S> g = q.pow(r);
  return (S(sign) * g).integral(f0);
}

}  // namespace series_coefficients

// ---------------------------------------------------------------------------------------------
template <class S>
struct Taylor2 {
  int deg = 0;
  std::array<S, series_size(kMaxSeriesDegree)> c;

  Taylor2() { c[0] = S(0.0); }
  Taylor2(double x) { c[0] = S(x); }  // NOLINT: constants convert implicitly
  template <class T, class = std::enable_if_t<!std::is_same_v<T, double> && std::is_same_v<T, S>>>
  Taylor2(const T& x) { c[0] = x; }  // NOLINT

  Taylor2(const Taylor2& o) : deg(o.deg) { copy_from(o); }
  Taylor2& operator=(const Taylor2& o) {
    deg = o.deg;
    copy_from(o);
    return *this;
  }

  static Taylor2 zero(int degree) {
    Taylor2 r;
    r.deg = degree;
    for (int i = 0; i < series_size(degree); ++i) r.c[i] = S(0.0);
    return r;
  }
  int size() const { return series_size(deg); }
  const S& operator()(int a, int b) const { return c[series_index(a, b)]; }
  S& operator()(int a, int b) { return c[series_index(a, b)]; }
  // Coefficient (a, b), zero beyond the stored degree.
  S at(int a, int b) const { return a + b <= deg ? c[series_index(a, b)] : S(0.0); }
  // The same series with at least degree `degree` (zero-filled).
  Taylor2 widened(int degree) const {
    if (degree <= deg) return *this;
    Taylor2 r = *this;
    for (int i = size(); i < series_size(degree); ++i) r.c[i] = S(0.0);
    r.deg = degree;
    return r;
  }

  // The same series truncated at total degree `degree` (the lower coefficients are exact).
  Taylor2 truncated(int degree) const {
    if (degree >= deg) return *this;
    Taylor2 r;
    r.deg = degree;
    for (int i = 0; i < series_size(degree); ++i) r.c[i] = c[i];
    return r;
  }

  Taylor2& operator+=(const Taylor2& o) {
    if (o.deg > deg) *this = widened(o.deg);
    for (int i = 0; i < o.size(); ++i) c[i] += o.c[i];
    return *this;
  }
  Taylor2& operator-=(const Taylor2& o) {
    if (o.deg > deg) *this = widened(o.deg);
    for (int i = 0; i < o.size(); ++i) c[i] -= o.c[i];
    return *this;
  }
  Taylor2& operator*=(const Taylor2& o) { *this = *this * o; return *this; }
  Taylor2& operator/=(const Taylor2& o) { *this = *this / o; return *this; }
  Taylor2 operator-() const {
    Taylor2 r = *this;
    for (int i = 0; i < size(); ++i) r.c[i] = -c[i];
    return r;
  }
  Taylor2 operator+() const { return *this; }

  friend Taylor2 operator+(const Taylor2& x, const Taylor2& y) { Taylor2 r = x; r += y; return r; }
  friend Taylor2 operator-(const Taylor2& x, const Taylor2& y) { Taylor2 r = x; r -= y; return r; }
  friend Taylor2 operator*(const Taylor2& x, const Taylor2& y) {
    if (x.deg == 0) return y.scaled(x.c[0]);
    if (y.deg == 0) return x.scaled(y.c[0]);
    const int D = std::max(x.deg, y.deg);
    Taylor2 r = zero(D);
    // c_(i+k, j+l) += x_ij y_kl over total degrees (i+j) + (k+l) <= D. With the storage by
    // total degree, the products of x_ij with the degree-dy block of y land in one contiguous
    // block of r: an axpy over k.
    for (int dx = 0; dx <= x.deg; ++dx)
      for (int i = 0; i <= dx; ++i) {
        const S& xv = x.c[series_index(i, dx - i)];
        for (int dy = 0; dy <= std::min(y.deg, D - dx); ++dy) {
          S* out = &r.c[series_index(i, dx + dy - i)];
          const S* in = &y.c[series_index(0, dy)];
          for (int k = 0; k <= dy; ++k) out[k] += xv * in[k];
        }
      }
    return r;
  }
  // x / y by the recurrence of the homogeneous parts (below): r_k = (x_k - sum_{j>=1} y_j r_(k-j)) / y_0,
  // the cost of one product.
  friend Taylor2 operator/(const Taylor2& x, const Taylor2& y) {
    if (y.deg == 0) return x.scaled(S(1.0) / y.c[0]);
    const int D = std::max(x.deg, y.deg);
    Taylor2 r = zero(D);
    const S inv = S(1.0) / y.c[0];
    for (int k = 0; k <= D; ++k) {
      S* rk = r.block(k);
      if (k <= x.deg)
        for (int a = 0; a <= k; ++a) rk[a] = x.block(k)[a];
      for (int j = 1; j <= std::min(k, y.deg); ++j) accumulate(rk, -1.0, y.block(j), j, r.block(k - j), k - j);
      for (int a = 0; a <= k; ++a) rk[a] = rk[a] * inv;
    }
    return r;
  }

  // The homogeneous part of total degree d: coefficients (a, d - a), a = 0..d, contiguous. A
  // series is x(tau) = sum_d x_d tau^d in the scaling tau (eps, t), so the univariate
  // recurrences of the elementary functions (Griewank-Walther ch. 13) apply to the parts, with
  // polynomial products of parts in place of products of numbers: each function then costs one
  // or two series products, where the composition by Horner's rule costs `deg` of them.
  const S* block(int d) const { return &c[series_index(0, d)]; }
  S* block(int d) { return &c[series_index(0, d)]; }
  // out (part of degree i + j) += scale * x (part of degree i) * y (part of degree j).
  static void accumulate(S* out, double scale, const S* x, int i, const S* y, int j) {
    for (int a = 0; a <= i; ++a) {
      const S xa = scale * x[a];
      for (int b = 0; b <= j; ++b) out[a + b] += xa * y[b];
    }
  }
  friend Taylor2 operator+(const Taylor2& x, double a) { Taylor2 r = x; r.c[0] += a; return r; }
  friend Taylor2 operator+(double a, const Taylor2& x) { return x + a; }
  friend Taylor2 operator-(const Taylor2& x, double a) { Taylor2 r = x; r.c[0] -= a; return r; }
  friend Taylor2 operator-(double a, const Taylor2& x) { Taylor2 r = -x; r.c[0] += a; return r; }
  friend Taylor2 operator*(const Taylor2& x, double a) { return x.scaled(S(a)); }
  friend Taylor2 operator*(double a, const Taylor2& x) { return x.scaled(S(a)); }
  friend Taylor2 operator/(const Taylor2& x, double a) { return x.scaled(S(1.0 / a)); }
  friend Taylor2 operator/(double a, const Taylor2& x) { return reciprocal(x).scaled(S(a)); }

  friend bool operator<(const Taylor2& a, const Taylor2& b) { return value(a) < value(b); }
  friend bool operator>(const Taylor2& a, const Taylor2& b) { return value(a) > value(b); }
  friend bool operator<=(const Taylor2& a, const Taylor2& b) { return value(a) <= value(b); }
  friend bool operator>=(const Taylor2& a, const Taylor2& b) { return value(a) >= value(b); }
  friend bool operator==(const Taylor2& a, const Taylor2& b) { return value(a) == value(b); }
  friend bool operator!=(const Taylor2& a, const Taylor2& b) { return value(a) != value(b); }

  Taylor2 scaled(const S& a) const {
    Taylor2 r = *this;
    for (int i = 0; i < size(); ++i) r.c[i] = a * c[i];
    return r;
  }

  // f(x) = sum_k f_k (x - x0)^k by Horner's rule, f_k the Taylor coefficients of f at x0.
  Taylor2 compose(const UTaylor<S>& f) const {
    if (deg == 0) return Taylor2(f.c[0]);
    Taylor2 delta = *this;
    delta.c[0] = S(0.0);
    Taylor2 r(f.c[deg]);
    for (int k = deg - 1; k >= 0; --k) {
      r = r * delta;
      r.c[0] += f.c[k];
    }
    return r.widened(deg);
  }

  friend Taylor2 reciprocal(const Taylor2& x) { return Taylor2(1.0) / x; }

 private:
  void copy_from(const Taylor2& o) {
    for (int i = 0; i < o.size(); ++i) c[i] = o.c[i];
  }
};

template <class S>
struct ValueOf<Taylor2<S>> {
  static double get(const Taylor2<S>& x) { return value(x.c[0]); }
};

// d/dt: coefficient (a, b) of the result is (b + 1) x_(a, b+1); degree drops by one.
template <class S>
Taylor2<S> derivative_t(const Taylor2<S>& x) {
  Taylor2<S> r = Taylor2<S>::zero(x.deg);
  for (int d = 0; d < x.deg; ++d)
    for (int a = 0; a <= d; ++a) r(a, d - a) = double(d - a + 1) * x(a, d - a + 1);
  return r;
}

// x0 + integral_0^t x dt, at degree D.
template <class S>
Taylor2<S> integral_t(const S& x0, const Taylor2<S>& x, int D) {
  Taylor2<S> r = Taylor2<S>::zero(D);
  r(0, 0) = x0;
  for (int d = 1; d <= D; ++d)
    for (int a = 0; a < d; ++a) r(a, d - a) = x.at(a, d - a - 1) / double(d - a);
  return r;
}

// eps * x, at degree D.
template <class S>
Taylor2<S> times_eps(const Taylor2<S>& x, int D) {
  Taylor2<S> r = Taylor2<S>::zero(D);
  for (int d = 1; d <= D; ++d)
    for (int a = 1; a <= d; ++a) r(a, d - a) = x.at(a - 1, d - a);
  return r;
}

// The elementary functions by the recurrences of the homogeneous parts (Taylor2::block), with
// y_0 = f(x_0) a number:
//   exp:  y_k = (1/k) sum_{j=1..k} j x_j y_(k-j)
//   log:  y_k = (x_k - (1/k) sum_{j=1..k-1} j y_j x_(k-j)) / x_0
//   sqrt: y_k = (x_k - sum_{j=1..k-1} y_j y_(k-j)) / (2 y_0)
//   sin, cos: s_k = (1/k) sum j x_j c_(k-j),  c_k = -(1/k) sum j x_j s_(k-j)  (sinh, cosh: +).
namespace taylor2_detail {

template <class S>
Taylor2<S> exp(const Taylor2<S>& x) {
  using std::exp;
  Taylor2<S> y = Taylor2<S>::zero(x.deg);
  y.c[0] = exp(x.c[0]);
  for (int k = 1; k <= x.deg; ++k)
    for (int j = 1; j <= k; ++j) Taylor2<S>::accumulate(y.block(k), double(j) / k, x.block(j), j, y.block(k - j), k - j);
  return y;
}

template <class S>
Taylor2<S> log(const Taylor2<S>& x) {
  using std::log;
  Taylor2<S> y = Taylor2<S>::zero(x.deg);
  y.c[0] = log(x.c[0]);
  const S inv = S(1.0) / x.c[0];
  for (int k = 1; k <= x.deg; ++k) {
    S* yk = y.block(k);
    for (int a = 0; a <= k; ++a) yk[a] = x.block(k)[a];
    for (int j = 1; j < k; ++j) Taylor2<S>::accumulate(yk, -double(j) / k, y.block(j), j, x.block(k - j), k - j);
    for (int a = 0; a <= k; ++a) yk[a] = yk[a] * inv;
  }
  return y;
}

template <class S>
Taylor2<S> sqrt(const Taylor2<S>& x) {
  using std::sqrt;
  Taylor2<S> y = Taylor2<S>::zero(x.deg);
  y.c[0] = sqrt(x.c[0]);
  const S inv = S(0.5) / y.c[0];
  for (int k = 1; k <= x.deg; ++k) {
    S* yk = y.block(k);
    for (int a = 0; a <= k; ++a) yk[a] = x.block(k)[a];
    for (int j = 1; j < k; ++j) Taylor2<S>::accumulate(yk, -1.0, y.block(j), j, y.block(k - j), k - j);
    for (int a = 0; a <= k; ++a) yk[a] = yk[a] * inv;
  }
  return y;
}

// (sin, cos) for sign = -1, (sinh, cosh) for sign = +1.
template <class S>
void sincos(const Taylor2<S>& x, double sign, Taylor2<S>& s, Taylor2<S>& c) {
  using std::sin, std::cos, std::sinh, std::cosh;
  s = Taylor2<S>::zero(x.deg);
  c = Taylor2<S>::zero(x.deg);
  s.c[0] = sign < 0 ? sin(x.c[0]) : sinh(x.c[0]);
  c.c[0] = sign < 0 ? cos(x.c[0]) : cosh(x.c[0]);
  for (int k = 1; k <= x.deg; ++k)
    for (int j = 1; j <= k; ++j) {
      Taylor2<S>::accumulate(s.block(k), double(j) / k, x.block(j), j, c.block(k - j), k - j);
      Taylor2<S>::accumulate(c.block(k), sign * j / k, x.block(j), j, s.block(k - j), k - j);
    }
}

}  // namespace taylor2_detail

template <class S> Taylor2<S> exp(const Taylor2<S>& x) { return taylor2_detail::exp(x); }
template <class S> Taylor2<S> log(const Taylor2<S>& x) { return taylor2_detail::log(x); }
template <class S> Taylor2<S> sqrt(const Taylor2<S>& x) { return taylor2_detail::sqrt(x); }
template <class S> Taylor2<S> sin(const Taylor2<S>& x) {
  Taylor2<S> s, c;
  taylor2_detail::sincos(x, -1.0, s, c);
  return s;
}
template <class S> Taylor2<S> cos(const Taylor2<S>& x) {
  Taylor2<S> s, c;
  taylor2_detail::sincos(x, -1.0, s, c);
  return c;
}
template <class S> Taylor2<S> sinh(const Taylor2<S>& x) {
  Taylor2<S> s, c;
  taylor2_detail::sincos(x, 1.0, s, c);
  return s;
}
template <class S> Taylor2<S> cosh(const Taylor2<S>& x) {
  Taylor2<S> s, c;
  taylor2_detail::sincos(x, 1.0, s, c);
  return c;
}
template <class S> Taylor2<S> tan(const Taylor2<S>& x) { return sin(x) / cos(x); }
template <class S> Taylor2<S> tanh(const Taylor2<S>& x) { return sinh(x) / cosh(x); }

template <class S> Taylor2<S> asin(const Taylor2<S>& x) {
  using std::asin;
  return x.compose(series_coefficients::integral_of_quadratic_power(asin(x.c[0]), x.c[0], 1.0, -1.0, -0.5, 1.0, x.deg));
}
template <class S> Taylor2<S> acos(const Taylor2<S>& x) {
  using std::acos;
  return x.compose(series_coefficients::integral_of_quadratic_power(acos(x.c[0]), x.c[0], 1.0, -1.0, -0.5, -1.0, x.deg));
}
template <class S> Taylor2<S> atan(const Taylor2<S>& x) {
  using std::atan;
  return x.compose(series_coefficients::integral_of_quadratic_power(atan(x.c[0]), x.c[0], 1.0, 1.0, -1.0, 1.0, x.deg));
}
template <class S> Taylor2<S> asinh(const Taylor2<S>& x) {
  using std::asinh;
  return x.compose(series_coefficients::integral_of_quadratic_power(asinh(x.c[0]), x.c[0], 1.0, 1.0, -0.5, 1.0, x.deg));
}
template <class S> Taylor2<S> acosh(const Taylor2<S>& x) {
  using std::acosh;
  return x.compose(series_coefficients::integral_of_quadratic_power(acosh(x.c[0]), x.c[0], -1.0, 1.0, -0.5, 1.0, x.deg));
}
template <class S> Taylor2<S> atanh(const Taylor2<S>& x) {
  using std::atanh;
  return x.compose(series_coefficients::integral_of_quadratic_power(atanh(x.c[0]), x.c[0], 1.0, -1.0, -1.0, 1.0, x.deg));
}
template <class S> Taylor2<S> abs(const Taylor2<S>& x) { return value(x) < 0 ? -x : x; }
template <class S> Taylor2<S> atan2(const Taylor2<S>& y, const Taylor2<S>& x) {
  // atan2(y, x) = atan(y/x) + const, the constant fixing the branch at the expansion point.
  using std::atan2, std::atan;
  Taylor2<S> r = atan(y / x);
  r.c[0] = atan2(y.c[0], x.c[0]);
  return r;
}
template <class S> Taylor2<S> pow(const Taylor2<S>& x, const Taylor2<S>& y) { return exp(y * log(x)); }

}  // namespace nonholo

namespace Eigen {
template <class S>
struct NumTraits<nonholo::Taylor2<S>> : GenericNumTraits<double> {
  using Real = nonholo::Taylor2<S>;
  using NonInteger = nonholo::Taylor2<S>;
  using Nested = nonholo::Taylor2<S>;
  using Literal = nonholo::Taylor2<S>;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 1,
    ReadCost = 10 * NumTraits<S>::ReadCost,
    AddCost = 10 * NumTraits<S>::AddCost,
    MulCost = 40 * NumTraits<S>::MulCost
  };
  static inline Real epsilon() { return Real(NumTraits<double>::epsilon()); }
  static inline Real dummy_precision() { return Real(NumTraits<double>::dummy_precision()); }
  static inline Real highest() { return Real(NumTraits<double>::highest()); }
  static inline Real lowest() { return Real(NumTraits<double>::lowest()); }
  static inline int digits10() { return NumTraits<double>::digits10(); }
};
template <class S, typename BinaryOp>
struct ScalarBinaryOpTraits<nonholo::Taylor2<S>, double, BinaryOp> { using ReturnType = nonholo::Taylor2<S>; };
template <class S, typename BinaryOp>
struct ScalarBinaryOpTraits<double, nonholo::Taylor2<S>, BinaryOp> { using ReturnType = nonholo::Taylor2<S>; };
}  // namespace Eigen
