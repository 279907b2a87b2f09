// Compiled serial vector operations (serial_ops.hpp). Each keeps the serial library's special
// cases and order of operations, so results are bitwise those of nvector_serial.c.
#include "nonholo/sundials/serial_ops.hpp"

#include <cmath>

#include <nvector/nvector_serial.h>

#include "nonholo/sundials/compat.hpp"

namespace nonholo::sun {

namespace {

inline long length(N_Vector v) { return static_cast<long>(NV_LENGTH_S(v)); }
inline double* data(N_Vector v) { return NV_DATA_S(v); }

void linear_sum(real a, N_Vector x, real b, N_Vector y, N_Vector z) {
  const long n = length(x);
  const double* xd = data(x);
  const double* yd = data(y);
  double* zd = data(z);
  // y <- a x + y and x <- b y + x (axpy, with a = +-1 as sum or difference)
  auto axpy = [n](double s, const double* u, double* w) {
    if (s == 1.0)
      for (long i = 0; i < n; ++i) w[i] = u[i] + w[i];
    else if (s == -1.0)
      for (long i = 0; i < n; ++i) w[i] = w[i] - u[i];
    else
      for (long i = 0; i < n; ++i) w[i] += s * u[i];
  };
  if (b == 1.0 && z == y) return axpy(a, xd, zd);
  if (a == 1.0 && z == x) return axpy(b, yd, zd);
  if (a == 1.0 && b == 1.0) {
    for (long i = 0; i < n; ++i) zd[i] = xd[i] + yd[i];
    return;
  }
  if ((a == 1.0 && b == -1.0) || (a == -1.0 && b == 1.0)) {
    const double* plus = a == 1.0 ? xd : yd;
    const double* minus = a == 1.0 ? yd : xd;
    for (long i = 0; i < n; ++i) zd[i] = plus[i] - minus[i];
    return;
  }
  if (a == 1.0 || b == 1.0) {  // c v1 + v2 with the unit-coefficient vector as v2
    const double c = a == 1.0 ? b : a;
    const double* v1 = a == 1.0 ? yd : xd;
    const double* v2 = a == 1.0 ? xd : yd;
    for (long i = 0; i < n; ++i) zd[i] = c * v1[i] + v2[i];
    return;
  }
  if (a == -1.0 || b == -1.0) {  // c v1 - v2
    const double c = a == -1.0 ? b : a;
    const double* v1 = a == -1.0 ? yd : xd;
    const double* v2 = a == -1.0 ? xd : yd;
    for (long i = 0; i < n; ++i) zd[i] = c * v1[i] - v2[i];
    return;
  }
  if (a == b) {
    for (long i = 0; i < n; ++i) zd[i] = a * (xd[i] + yd[i]);
    return;
  }
  if (a == -b) {
    for (long i = 0; i < n; ++i) zd[i] = a * (xd[i] - yd[i]);
    return;
  }
  for (long i = 0; i < n; ++i) zd[i] = (a * xd[i]) + (b * yd[i]);
}

void constant(real c, N_Vector z) {
  const long n = length(z);
  double* zd = data(z);
  for (long i = 0; i < n; ++i) zd[i] = c;
}

void prod(N_Vector x, N_Vector y, N_Vector z) {
  const long n = length(x);
  const double *xd = data(x), *yd = data(y);
  double* zd = data(z);
  for (long i = 0; i < n; ++i) zd[i] = xd[i] * yd[i];
}

void div(N_Vector x, N_Vector y, N_Vector z) {
  const long n = length(x);
  const double *xd = data(x), *yd = data(y);
  double* zd = data(z);
  for (long i = 0; i < n; ++i) zd[i] = xd[i] / yd[i];
}

void scale(real c, N_Vector x, N_Vector z) {
  const long n = length(x);
  const double* xd = data(x);
  double* zd = data(z);
  if (z == x) {
    for (long i = 0; i < n; ++i) zd[i] *= c;
  } else if (c == 1.0) {
    for (long i = 0; i < n; ++i) zd[i] = xd[i];
  } else if (c == -1.0) {
    for (long i = 0; i < n; ++i) zd[i] = -xd[i];
  } else {
    for (long i = 0; i < n; ++i) zd[i] = c * xd[i];
  }
}

void absolute(N_Vector x, N_Vector z) {
  const long n = length(x);
  const double* xd = data(x);
  double* zd = data(z);
  for (long i = 0; i < n; ++i) zd[i] = std::abs(xd[i]);
}

void inverse(N_Vector x, N_Vector z) {
  const long n = length(x);
  const double* xd = data(x);
  double* zd = data(z);
  for (long i = 0; i < n; ++i) zd[i] = 1.0 / xd[i];
}

void add_constant(N_Vector x, real b, N_Vector z) {
  const long n = length(x);
  const double* xd = data(x);
  double* zd = data(z);
  for (long i = 0; i < n; ++i) zd[i] = xd[i] + b;
}

// sqrt(sum (x_i w_i)^2 / n), summed in order
real wrms_norm(N_Vector x, N_Vector w) {
  const long n = length(x);
  const double *xd = data(x), *wd = data(w);
  double sum = 0.0;
  for (long i = 0; i < n; ++i) {
    const double p = xd[i] * wd[i];
    sum += p * p;
  }
  return std::sqrt(sum / static_cast<double>(n));
}

real max_norm(N_Vector x) {
  const long n = length(x);
  const double* xd = data(x);
  double largest = 0.0;
  for (long i = 0; i < n; ++i)
    if (std::abs(xd[i]) > largest) largest = std::abs(xd[i]);
  return largest;
}

real minimum(N_Vector x) {
  const long n = length(x);
  const double* xd = data(x);
  double smallest = xd[0];
  for (long i = 1; i < n; ++i)
    if (xd[i] < smallest) smallest = xd[i];
  return smallest;
}

void compare(real c, N_Vector x, N_Vector z) {
  const long n = length(x);
  const double* xd = data(x);
  double* zd = data(z);
  for (long i = 0; i < n; ++i) zd[i] = std::abs(xd[i]) >= c ? 1.0 : 0.0;
}

sunbooleantype inverse_test(N_Vector x, N_Vector z) {
  const long n = length(x);
  const double* xd = data(x);
  double* zd = data(z);
  sunbooleantype no_zero = SUNTRUE;
  for (long i = 0; i < n; ++i) {
    if (xd[i] == 0.0)
      no_zero = SUNFALSE;
    else
      zd[i] = 1.0 / xd[i];
  }
  return no_zero;
}

}  // namespace

void use_compiled_ops(N_Vector v) {
  N_Vector_Ops ops = v->ops;
  ops->nvlinearsum = linear_sum;
  ops->nvconst = constant;
  ops->nvprod = prod;
  ops->nvdiv = div;
  ops->nvscale = scale;
  ops->nvabs = absolute;
  ops->nvinv = inverse;
  ops->nvaddconst = add_constant;
  ops->nvwrmsnorm = wrms_norm;
  ops->nvmaxnorm = max_norm;
  ops->nvmin = minimum;
  ops->nvcompare = compare;
  ops->nvinvtest = inverse_test;
}

}  // namespace nonholo::sun
