// The core's hand-written dense factorizations against Eigen's, on matrices of the workloads
// (written by benchmarks/linear_algebra_cost.py --kernels, which compiles and runs this program).
//
// Input (argv[1]): one matrix per line, "name kind rows cols v_00 v_01 ..." (row-major), kind one of
//   lu    a Newton matrix I - gamma J or its second-order Schur complement S: sun::lu_factor /
//         lu_solve (sundials/dense_lu.hpp; second_order_lu.hpp factors S with the same kernels)
//         against Eigen::PartialPivLU;
//   ldlt  a symmetric positive definite matrix (the metric G, the Gram matrix M = A G^-1 A^T):
//         Ldlt<double> (linalg.hpp) against Eigen::LDLT and Eigen::LLT;
//   frame a frame's k x k split block of A: Lu's loops (linalg.hpp, Lu<double, false>) against
//         Eigen::PartialPivLU, and the core's Lu<double> (Eigen's behind Lu's interface and its
//         pivot check).
// Each implementation's object is made once per matrix (storage allocated once, as in the core's
// workspaces); "factor" times compute() on the matrix, "solve" one right-hand side with those
// factors (into preallocated storage).
//
// Modes:
//   time FILE REPEATS      per call in ns: medians over REPEATS rounds, in each round every
//                          implementation of a (matrix, phase) once, in turn (interleaved), each
//                          a loop of about 0.5 ms; also max |x - x_hand| / |x_hand| of the solutions.
//   count FILE LINE IMPL PHASE ITERS
//                          runs ITERS calls of one kernel inside bench_loop, for
//                          valgrind --tool=callgrind --collect-atstart=no --toggle-collect=bench_loop.
// Output: JSON lines.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <Eigen/LU>

#include "nonholo/linalg.hpp"
#include "nonholo/sundials/dense_lu.hpp"

namespace {

struct Case {
  std::string name, kind;
  Eigen::MatrixXd A;
};

std::vector<Case> read_cases(const char* path) {
  std::ifstream in(path);
  std::vector<Case> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream s(line);
    Case c;
    int rows = 0, cols = 0;
    s >> c.name >> c.kind >> rows >> cols;
    c.A.resize(rows, cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) s >> c.A(i, j);
    out.push_back(std::move(c));
  }
  return out;
}

// One implementation on one matrix: factor() and solve(), and the last solution.
struct Kernel {
  virtual ~Kernel() = default;
  virtual void factor() = 0;
  virtual void solve() = 0;
  virtual const Eigen::VectorXd& x() const = 0;
};

struct HandLu : Kernel {
  const Eigen::MatrixXd& A;  // column-major, as CVODE's matrix
  Eigen::MatrixXd work;
  std::vector<int> pivots;
  Eigen::VectorXd b, sol;
  HandLu(const Eigen::MatrixXd& a, const Eigen::VectorXd& rhs)
      : A(a), work(a), pivots(a.rows()), b(rhs), sol(rhs) {}
  void factor() override {
    std::copy(A.data(), A.data() + A.size(), work.data());  // the core refactors a freshly formed matrix
    nonholo::sun::lu_factor(work.data(), static_cast<int>(A.rows()), pivots.data());
  }
  void solve() override {
    sol = b;
    nonholo::sun::lu_solve(work.data(), static_cast<int>(A.rows()), pivots.data(), sol.data());
  }
  const Eigen::VectorXd& x() const override { return sol; }
};

template <class Decomposition>
struct EigenKernel : Kernel {
  const Eigen::MatrixXd& A;
  Decomposition dec;
  Eigen::VectorXd b, sol;
  EigenKernel(const Eigen::MatrixXd& a, const Eigen::VectorXd& rhs) : A(a), dec(a.rows()), b(rhs), sol(rhs) {}
  void factor() override { dec.compute(A); }
  void solve() override { sol = dec.solve(b); }
  const Eigen::VectorXd& x() const override { return sol; }
};

struct HandLdlt : Kernel {
  const Eigen::MatrixXd& A;
  nonholo::Ldlt<double> dec;
  Eigen::VectorXd b, sol;
  HandLdlt(const Eigen::MatrixXd& a, const Eigen::VectorXd& rhs) : A(a), b(rhs), sol(rhs) {}
  void factor() override { dec.compute(A); }
  void solve() override {
    sol = b;
    dec.solve(sol.data());
  }
  const Eigen::VectorXd& x() const override { return sol; }
};

template <bool kEigen>
struct FrameLu : Kernel {
  const Eigen::MatrixXd& A;
  nonholo::Lu<double, kEigen> dec;
  Eigen::VectorXd b, sol;
  FrameLu(const Eigen::MatrixXd& a, const Eigen::VectorXd& rhs) : A(a), b(rhs), sol(rhs) {}
  void factor() override { dec.compute(A); }
  void solve() override {
    sol = b;
    dec.solve_in_place(sol);
  }
  const Eigen::VectorXd& x() const override { return sol; }
};

std::vector<std::string> implementations(const std::string& kind) {
  if (kind == "lu") return {"hand", "eigen_partial_piv_lu"};
  if (kind == "ldlt") return {"hand", "eigen_ldlt", "eigen_llt"};
  if (kind == "frame") return {"hand", "eigen_partial_piv_lu", "core_lu"};
  std::fprintf(stderr, "unknown kind %s\n", kind.c_str());
  std::exit(2);
}

std::unique_ptr<Kernel> make_kernel(const Case& c, const std::string& impl, const Eigen::VectorXd& b) {
  using Eigen::MatrixXd;
  if (impl == "eigen_partial_piv_lu") return std::make_unique<EigenKernel<Eigen::PartialPivLU<MatrixXd>>>(c.A, b);
  if (impl == "eigen_ldlt") return std::make_unique<EigenKernel<Eigen::LDLT<MatrixXd, Eigen::Lower>>>(c.A, b);
  if (impl == "eigen_llt") return std::make_unique<EigenKernel<Eigen::LLT<MatrixXd, Eigen::Lower>>>(c.A, b);
  if (impl == "core_lu") return std::make_unique<FrameLu<true>>(c.A, b);
  if (c.kind == "lu") return std::make_unique<HandLu>(c.A, b);
  if (c.kind == "ldlt") return std::make_unique<HandLdlt>(c.A, b);
  return std::make_unique<FrameLu<false>>(c.A, b);
}

}  // namespace

// The measured loop (callgrind collects inside it only).
extern "C" __attribute__((noinline)) void bench_loop(Kernel* k, bool factor, long iters) {
  if (factor)
    for (long i = 0; i < iters; ++i) k->factor();
  else
    for (long i = 0; i < iters; ++i) k->solve();
}

namespace {

double seconds_of(Kernel* k, bool factor, long iters) {
  const auto t0 = std::chrono::steady_clock::now();
  bench_loop(k, factor, iters);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Eigen::VectorXd rhs_for(const Case& c) {
  Eigen::VectorXd b(c.A.rows());
  for (int i = 0; i < b.size(); ++i) b(i) = std::sin(1.0 + i);  // fixed, no zeros
  return b;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int time_mode(const char* path, int repeats) {
  for (const Case& c : read_cases(path)) {
    const Eigen::VectorXd b = rhs_for(c);
    const auto impls = implementations(c.kind);
    std::vector<std::unique_ptr<Kernel>> kernels;
    for (const auto& impl : impls) kernels.push_back(make_kernel(c, impl, b));
    // the solutions, checked against the hand-written one
    std::vector<double> diff(impls.size(), 0.0);
    for (size_t i = 0; i < kernels.size(); ++i) {
      kernels[i]->factor();
      kernels[i]->solve();
      diff[i] = (kernels[i]->x() - kernels[0]->x()).norm() / kernels[0]->x().norm();
    }
    for (bool factor : {true, false}) {
      std::vector<long> iters(impls.size());
      for (size_t i = 0; i < kernels.size(); ++i) {  // calibrate: a loop of about 0.5 ms
        long n = 16;
        while (seconds_of(kernels[i].get(), factor, n) < 5e-4 && n < (1L << 26)) n *= 2;
        iters[i] = n;
      }
      std::vector<std::vector<double>> ns(impls.size());
      for (int r = 0; r < repeats; ++r)
        for (size_t i = 0; i < kernels.size(); ++i)
          ns[i].push_back(seconds_of(kernels[i].get(), factor, iters[i]) * 1e9 / iters[i]);
      for (size_t i = 0; i < kernels.size(); ++i)
        std::printf("{\"case\": \"%s\", \"kind\": \"%s\", \"n\": %d, \"impl\": \"%s\", \"phase\": \"%s\", "
                    "\"ns\": %.4f, \"solution_difference\": %.3e}\n",
                    c.name.c_str(), c.kind.c_str(), static_cast<int>(c.A.rows()), impls[i].c_str(),
                    factor ? "factor" : "solve", median(ns[i]), diff[i]);
    }
  }
  return 0;
}

int count_mode(const char* path, int line, const std::string& impl, const std::string& phase, long iters) {
  const auto cases = read_cases(path);
  const Case& c = cases.at(line);
  auto k = make_kernel(c, impl, rhs_for(c));
  k->factor();
  k->solve();
  bench_loop(k.get(), phase == "factor", iters);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "time" && argc == 4) return time_mode(argv[2], std::atoi(argv[3]));
  if (mode == "count" && argc == 7) return count_mode(argv[2], std::atoi(argv[3]), argv[4], argv[5], std::atol(argv[6]));
  std::fprintf(stderr, "usage: %s time FILE REPEATS | count FILE LINE IMPL PHASE ITERS\n", argv[0]);
  return 2;
}
