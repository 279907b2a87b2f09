// The operations of an expression tape, each defined once for every scalar type.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "nonholo/scalar/value.hpp"

namespace nonholo {

enum class Op : std::uint8_t {
  Const,   // c
  Input,   // inputs[a]
  Add, Sub, Mul, Div, Neg,
  PowInt,  // a^n, n stored in the node's integer field
  Pow,     // a^b
  Sqrt, Exp, Log,
  Sin, Cos, Tan, Asin, Acos, Atan, Atan2,  // Atan2(y=a, x=b)
  Sinh, Cosh, Tanh, Asinh, Acosh, Atanh,
  Abs, Sign,
  Count_
};

constexpr int kOpCount = static_cast<int>(Op::Count_);

inline int op_arity(Op op) {
  switch (op) {
    case Op::Const: case Op::Input: return 0;
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Pow: case Op::Atan2: return 2;
    default: return 1;
  }
}

inline bool op_commutes(Op op) { return op == Op::Add || op == Op::Mul; }

const char* op_name(Op op);

// The value of one operation. `n` is the integer exponent of PowInt.
template <class S>
inline S apply_op(Op op, const S& a, const S& b, int n) {
  using std::sin, std::cos, std::tan, std::asin, std::acos, std::atan, std::atan2, std::sinh,
      std::cosh, std::tanh, std::asinh, std::acosh, std::atanh, std::exp, std::log, std::sqrt,
      std::pow, std::abs;
  switch (op) {
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::Div: return a / b;
    case Op::Neg: return -a;
    case Op::PowInt: return powi(a, n);
    case Op::Pow: return pow(a, b);
    case Op::Sqrt: return sqrt(a);
    case Op::Exp: return exp(a);
    case Op::Log: return log(a);
    case Op::Sin: return sin(a);
    case Op::Cos: return cos(a);
    case Op::Tan: return tan(a);
    case Op::Asin: return asin(a);
    case Op::Acos: return acos(a);
    case Op::Atan: return atan(a);
    case Op::Atan2: return atan2(a, b);
    case Op::Sinh: return sinh(a);
    case Op::Cosh: return cosh(a);
    case Op::Tanh: return tanh(a);
    case Op::Asinh: return asinh(a);
    case Op::Acosh: return acosh(a);
    case Op::Atanh: return atanh(a);
    case Op::Abs: return abs(a);
    case Op::Sign: return S(sign(value(a)));  // piecewise constant: zero derivative
    default: return a;                         // Const/Input are handled by the caller
  }
}

}  // namespace nonholo
