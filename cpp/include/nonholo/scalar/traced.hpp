// A scalar that records its arithmetic into an expression graph (operator-overloading source
// transformation). Running any algorithm written for a generic scalar (the slow-manifold
// expansion, the factorizations of linalg.hpp) with Traced numbers compiles it into an
// ExprGraph once; the GraphBuilder's hash-consing shares common subexpressions and its constant
// folding drops the structural zeros.
//
// A Traced number also carries its value at the point where the trace was taken: value() is
// what the factorizations test their pivots on, so they must be taken where the matrices are
// regular (the compiled graph has no branches; it is valid wherever the same pivots are).
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "nonholo/scalar/value.hpp"
#include "nonholo/tape/graph.hpp"

namespace nonholo {

class Traced;

// The builder every Traced operation appends to; set for the duration of one trace.
class TraceScope {
 public:
  explicit TraceScope(GraphBuilder& builder) : previous_(current()) { current() = &builder; }
  ~TraceScope() { current() = previous_; }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;
  static GraphBuilder*& current() {
    thread_local GraphBuilder* builder = nullptr;
    return builder;
  }
  static std::size_t& budget() {
    thread_local std::size_t nodes = static_cast<std::size_t>(-1);
    return nodes;
  }

 private:
  GraphBuilder* previous_;
};

// Sets TraceScope::budget() (the most nodes a trace may build) for its lifetime.
class TraceBudget {
 public:
  explicit TraceBudget(std::size_t nodes) : previous_(TraceScope::budget()) { TraceScope::budget() = nodes; }
  ~TraceBudget() { TraceScope::budget() = previous_; }
  TraceBudget(const TraceBudget&) = delete;
  TraceBudget& operator=(const TraceBudget&) = delete;

 private:
  std::size_t previous_;
};

class Traced {
 public:
  Traced() = default;  // zero, without a node until it is used
  Traced(double x) : v_(x), id_(x == 0.0 ? -1 : builder().constant(x)) {}  // NOLINT
  static Traced input(int i, double x) { return Traced(x, builder().input(i)); }

  double val() const { return v_; }
  bool is_zero() const { return id_ < 0; }
  int node() const { return id_ < 0 ? builder().constant(0.0) : id_; }

  Traced& operator+=(const Traced& o) { return *this = *this + o; }
  Traced& operator-=(const Traced& o) { return *this = *this - o; }
  Traced& operator*=(const Traced& o) { return *this = *this * o; }
  Traced& operator/=(const Traced& o) { return *this = *this / o; }
  Traced operator-() const { return is_zero() ? *this : unary(Op::Neg, -v_); }
  Traced operator+() const { return *this; }

  friend Traced operator+(const Traced& a, const Traced& b) {
    if (a.is_zero()) return b;
    if (b.is_zero()) return a;
    return binary(Op::Add, a, b, a.v_ + b.v_);
  }
  friend Traced operator-(const Traced& a, const Traced& b) {
    if (b.is_zero()) return a;
    if (a.is_zero()) return -b;
    return binary(Op::Sub, a, b, a.v_ - b.v_);
  }
  friend Traced operator*(const Traced& a, const Traced& b) {
    if (a.is_zero() || b.is_zero()) return Traced();
    return binary(Op::Mul, a, b, a.v_ * b.v_);
  }
  friend Traced operator/(const Traced& a, const Traced& b) {
    if (a.is_zero()) return Traced();
    return binary(Op::Div, a, b, a.v_ / b.v_);
  }
  friend Traced operator+(const Traced& a, double b) { return a + Traced(b); }
  friend Traced operator+(double a, const Traced& b) { return Traced(a) + b; }
  friend Traced operator-(const Traced& a, double b) { return a - Traced(b); }
  friend Traced operator-(double a, const Traced& b) { return Traced(a) - b; }
  friend Traced operator*(const Traced& a, double b) { return a * Traced(b); }
  friend Traced operator*(double a, const Traced& b) { return Traced(a) * b; }
  friend Traced operator/(const Traced& a, double b) { return a / Traced(b); }
  friend Traced operator/(double a, const Traced& b) { return Traced(a) / b; }

  friend bool operator<(const Traced& a, const Traced& b) { return a.v_ < b.v_; }
  friend bool operator>(const Traced& a, const Traced& b) { return a.v_ > b.v_; }
  friend bool operator<=(const Traced& a, const Traced& b) { return a.v_ <= b.v_; }
  friend bool operator>=(const Traced& a, const Traced& b) { return a.v_ >= b.v_; }
  friend bool operator==(const Traced& a, const Traced& b) { return a.v_ == b.v_; }
  friend bool operator!=(const Traced& a, const Traced& b) { return a.v_ != b.v_; }

  // f(a) recorded as one node; `value` is f at a's value.
  Traced unary(Op op, double value) const { return Traced(value, builder().unary(op, node())); }
  static Traced binary(Op op, const Traced& a, const Traced& b, double value) {
    return Traced(value, builder().binary(op, a.node(), b.node()));
  }

  // The largest graph a trace may build (TraceScope's budget); beyond it the trace throws
  // TraceTooLarge and the caller keeps the untraced algorithm.
  struct TooLarge : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

 private:
  Traced(double x, int id) : v_(x), id_(id) {
    double c;
    if (is_constant_zero(id, &c)) id_ = -1;
    if (static_cast<std::size_t>(id) >= TraceScope::budget())
      throw TooLarge("the traced graph exceeds " + std::to_string(TraceScope::budget()) + " nodes");
  }
  static bool is_constant_zero(int id, double* c) {
    const Node& nd = builder().nodes()[id];
    *c = nd.c;
    return nd.op == Op::Const && nd.c == 0.0;
  }
  static GraphBuilder& builder() {
    GraphBuilder* b = TraceScope::current();
    if (b == nullptr) throw std::logic_error("a Traced number was used outside a TraceScope");
    return *b;
  }

  double v_ = 0.0;
  int id_ = -1;  // -1: the constant 0
};

template <>
struct ValueOf<Traced> {
  static double get(const Traced& x) { return x.val(); }
};

// What a trace of a whole right-hand side (fused_rhs.hpp) collects besides the graph: the time
// input, which replaces the constant time every replayed tape would otherwise read, and the
// pivots of each factorization with the diagonal they are measured against, so that the
// branch-free replay can test them as the factorization does. Active for one FusedTraceScope.
struct FusedTrace {
  Traced time;
  // One test of the replay (fused_rhs.hpp, FusedRhs::Guard): its kind and the graph nodes it reads.
  struct Test {
    enum Kind { kLdlt, kLu, kBound } kind = kLdlt;
    int size = 0;          // LDL^T and LU: the matrix order; bound: the number of values
    bool definite = true;  // LDL^T
    bool own_scale = false;  // LDL^T: each pivot against its own diagonal entry (Ldlt::compute)
    double bound = 0.0;    // bound
    std::vector<int> nodes;
  };
  std::vector<Test> guards;
  static FusedTrace*& current() {
    thread_local FusedTrace* trace = nullptr;
    return trace;
  }
};

class FusedTraceScope {
 public:
  explicit FusedTraceScope(FusedTrace& trace) : previous_(FusedTrace::current()) { FusedTrace::current() = &trace; }
  ~FusedTraceScope() { FusedTrace::current() = previous_; }
  FusedTraceScope(const FusedTraceScope&) = delete;
  FusedTraceScope& operator=(const FusedTraceScope&) = delete;

 private:
  FusedTrace* previous_;
};

template <>
struct TraceHooks<Traced> {
  static constexpr bool kTracing = true;
  static Traced time(const Traced& t) {
    const FusedTrace* f = FusedTrace::current();
    return f != nullptr ? f->time : t;
  }
  // nodes: the n diagonal entries, then the n pivots
  static void pivots(const Traced* diagonal, const Traced* pivots, int n, bool definite, bool own_scale) {
    FusedTrace::Test g;
    g.kind = FusedTrace::Test::kLdlt;
    g.size = n;
    g.definite = definite;
    g.own_scale = own_scale;
    for (int i = 0; i < n; ++i) g.nodes.push_back(diagonal[i].node());
    for (int i = 0; i < n; ++i) g.nodes.push_back(pivots[i].node());
    record(std::move(g));
  }
  // nodes: the n (n + 1) / 2 candidates, column by column, each column's pivot first
  static void lu_pivots(const Traced* candidates, int n) {
    FusedTrace::Test g;
    g.kind = FusedTrace::Test::kLu;
    g.size = n;
    for (int i = 0; i < n * (n + 1) / 2; ++i) g.nodes.push_back(candidates[i].node());
    record(std::move(g));
  }
  static void bounded(const Traced* x, int count, double bound) {
    FusedTrace::Test g;
    g.kind = FusedTrace::Test::kBound;
    g.size = count;
    g.bound = bound;
    for (int i = 0; i < count; ++i) g.nodes.push_back(x[i].node());
    record(std::move(g));
  }

 private:
  static void record(FusedTrace::Test&& g) {
    if (FusedTrace* f = FusedTrace::current()) f->guards.push_back(std::move(g));
  }
};

#define NONHOLO_TRACED_UNARY(name, op)                                                  \
  inline Traced name(const Traced& x) {                                                 \
    return x.unary(Op::op, apply_op<double>(Op::op, x.val(), 0.0, 0));                  \
  }
NONHOLO_TRACED_UNARY(sqrt, Sqrt)
NONHOLO_TRACED_UNARY(exp, Exp)
NONHOLO_TRACED_UNARY(log, Log)
NONHOLO_TRACED_UNARY(sin, Sin)
NONHOLO_TRACED_UNARY(cos, Cos)
NONHOLO_TRACED_UNARY(tan, Tan)
NONHOLO_TRACED_UNARY(asin, Asin)
NONHOLO_TRACED_UNARY(acos, Acos)
NONHOLO_TRACED_UNARY(atan, Atan)
NONHOLO_TRACED_UNARY(sinh, Sinh)
NONHOLO_TRACED_UNARY(cosh, Cosh)
NONHOLO_TRACED_UNARY(tanh, Tanh)
NONHOLO_TRACED_UNARY(asinh, Asinh)
NONHOLO_TRACED_UNARY(acosh, Acosh)
NONHOLO_TRACED_UNARY(atanh, Atanh)
NONHOLO_TRACED_UNARY(abs, Abs)
#undef NONHOLO_TRACED_UNARY

inline Traced atan2(const Traced& y, const Traced& x) {
  return Traced::binary(Op::Atan2, y, x, std::atan2(y.val(), x.val()));
}
inline Traced pow(const Traced& x, const Traced& y) { return Traced::binary(Op::Pow, x, y, std::pow(x.val(), y.val())); }
inline Traced pow(const Traced& x, double y) { return pow(x, Traced(y)); }

}  // namespace nonholo

namespace Eigen {
template <>
struct NumTraits<nonholo::Traced> : GenericNumTraits<double> {
  using Real = nonholo::Traced;
  using NonInteger = nonholo::Traced;
  using Nested = nonholo::Traced;
  using Literal = nonholo::Traced;
  enum { IsComplex = 0, IsInteger = 0, IsSigned = 1, RequireInitialization = 1, ReadCost = 1, AddCost = 1, MulCost = 1 };
  static inline Real epsilon() { return Real(NumTraits<double>::epsilon()); }
  static inline Real dummy_precision() { return Real(NumTraits<double>::dummy_precision()); }
  static inline Real highest() { return Real(NumTraits<double>::highest()); }
  static inline Real lowest() { return Real(NumTraits<double>::lowest()); }
  static inline int digits10() { return NumTraits<double>::digits10(); }
};
template <typename BinaryOp>
struct ScalarBinaryOpTraits<nonholo::Traced, double, BinaryOp> { using ReturnType = nonholo::Traced; };
template <typename BinaryOp>
struct ScalarBinaryOpTraits<double, nonholo::Traced, BinaryOp> { using ReturnType = nonholo::Traced; };
}  // namespace Eigen
