// Hand-written baseline for benchmarks/friction_sleigh.py: the Chaplygin sleigh with sideways
// friction, right-hand side and analytic Jacobian written out by hand, integrated with CVODE BDF
// and a dense direct linear solver (SUNDIALS 6.x API).
//
// State y = [x, y, phi, x', y', phi'], parameters m, I, a, mu and eps. With s = sin(phi),
// c = cos(phi), the sideways velocity  w = A v = -s x' + c y'  and
//   rho = mu (I + m a^2) / (I m eps),   k = mu a / (I eps),
// the equations G v' = -c(q, v) - (1/eps) A^T mu A v reduce to
//   x''   =  a c phi'^2 + rho s w
//   y''   =  a s phi'^2 - rho c w
//   phi'' =  k w
// (the body-frame equations u' = w phi' + a phi'^2, w' = -u phi' - rho w, phi'' = k w rotated
// to the plane; u = c x' + s y').
//
// Usage:
//   friction_sleigh_cvode solve EPS RTOL ATOL TF REPEATS Y0 Y1 Y2 Y3 Y4 Y5
//       integrates REPEATS times from 0 to TF; each repetition builds the CVODE objects, integrates
//       (CV_NORMAL with a stop time at TF) and frees them, and only that is timed (std::chrono).
//       Prints "final ...", "stats ..." and "times ..." lines.
//   friction_sleigh_cvode check EPS Y0 ... Y5
//       prints "rhs ..." and "jac ..." (row-major) at the given state, to verify this code.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

namespace {

struct Params {
  double m = 1.0, I = 1.0, a = 0.2, mu = 1.0, eps = 1e-4;
  double rho() const { return mu * (I + m * a * a) / (I * m * eps); }
  double k() const { return mu * a / (I * eps); }
};

void sleigh_rhs(const double* y, double* f, const Params& p) {
  const double s = std::sin(y[2]), c = std::cos(y[2]);
  const double om = y[5];
  const double w = -s * y[3] + c * y[4];
  const double rho = p.rho(), aom2 = p.a * om * om;
  f[0] = y[3];
  f[1] = y[4];
  f[2] = om;
  f[3] = aom2 * c + rho * s * w;
  f[4] = aom2 * s - rho * c * w;
  f[5] = p.k() * w;
}

// J(i, j) = d f_i / d y_j, written through set(i, j, value).
template <class Set>
void sleigh_jac(const double* y, const Params& p, Set set) {
  const double s = std::sin(y[2]), c = std::cos(y[2]);
  const double om = y[5];
  const double w = -s * y[3] + c * y[4];  // sideways velocity
  const double u = c * y[3] + s * y[4];   // forward velocity; dw/dphi = -u
  const double rho = p.rho(), k = p.k(), a = p.a;
  set(0, 3, 1.0);
  set(1, 4, 1.0);
  set(2, 5, 1.0);
  // x'' = a c om^2 + rho s w
  set(3, 2, -a * s * om * om + rho * (c * w - s * u));
  set(3, 3, -rho * s * s);
  set(3, 4, rho * s * c);
  set(3, 5, 2.0 * a * c * om);
  // y'' = a s om^2 - rho c w
  set(4, 2, a * c * om * om + rho * (s * w + c * u));
  set(4, 3, rho * s * c);
  set(4, 4, -rho * c * c);
  set(4, 5, 2.0 * a * s * om);
  // phi'' = k w
  set(5, 2, -k * u);
  set(5, 3, -k * s);
  set(5, 4, k * c);
}

int rhs_cb(sunrealtype, N_Vector y, N_Vector ydot, void* data) {
  sleigh_rhs(N_VGetArrayPointer(y), N_VGetArrayPointer(ydot), *static_cast<Params*>(data));
  return 0;
}

int jac_cb(sunrealtype, N_Vector y, N_Vector, SUNMatrix J, void* data, N_Vector, N_Vector, N_Vector) {
  SUNMatZero(J);
  sleigh_jac(N_VGetArrayPointer(y), *static_cast<Params*>(data),
             [J](int i, int j, double v) { SM_ELEMENT_D(J, i, j) = v; });
  return 0;
}

#define CHECK(call)                                                        \
  do {                                                                     \
    int flag_ = (call);                                                    \
    if (flag_ < 0) {                                                       \
      std::fprintf(stderr, "error: %s failed with flag %d\n", #call, flag_); \
      std::exit(2);                                                        \
    }                                                                      \
  } while (0)

struct Stats {
  long nst = 0, nfe = 0, nje = 0, nsetups = 0, netf = 0, nni = 0, ncfn = 0;
};

// One complete integration: create the solver, integrate to tf, read the statistics, free.
Stats solve_once(const Params& p, double rtol, double atol, double tf, const double* y0, double* yf,
                 bool fresh_jacobian) {
  SUNContext ctx = nullptr;
  CHECK(SUNContext_Create(nullptr, &ctx));
  N_Vector y = N_VNew_Serial(6, ctx);
  std::memcpy(N_VGetArrayPointer(y), y0, 6 * sizeof(double));
  void* mem = CVodeCreate(CV_BDF, ctx);
  if (!mem) {
    std::fprintf(stderr, "error: CVodeCreate failed\n");
    std::exit(2);
  }
  Params params = p;
  CHECK(CVodeInit(mem, rhs_cb, 0.0, y));
  CHECK(CVodeSetUserData(mem, &params));
  CHECK(CVodeSStolerances(mem, rtol, atol));
  CHECK(CVodeSetMaxNumSteps(mem, 500000));
  CHECK(CVodeSetStopTime(mem, tf));
  SUNMatrix J = SUNDenseMatrix(6, 6, ctx);
  SUNLinearSolver LS = SUNLinSol_Dense(y, J, ctx);
  CHECK(CVodeSetLinearSolver(mem, LS, J));
  CHECK(CVodeSetJacFn(mem, jac_cb));
  if (fresh_jacobian) {  // nonholo's setting for stiff models: Jacobian and iteration matrix every step
    CHECK(CVodeSetJacEvalFrequency(mem, 1));
    CHECK(CVodeSetLSetupFrequency(mem, 1));
  }

  double t = 0.0;
  int flag = CVode(mem, tf, y, &t, CV_NORMAL);
  if (flag < 0) {
    std::fprintf(stderr, "error: CVode failed with flag %d at t = %g\n", flag, t);
    std::exit(3);
  }
  std::memcpy(yf, N_VGetArrayPointer(y), 6 * sizeof(double));
  Stats st;
  CVodeGetNumSteps(mem, &st.nst);
  CVodeGetNumRhsEvals(mem, &st.nfe);
  CVodeGetNumJacEvals(mem, &st.nje);
  CVodeGetNumLinSolvSetups(mem, &st.nsetups);
  CVodeGetNumErrTestFails(mem, &st.netf);
  CVodeGetNumNonlinSolvIters(mem, &st.nni);
  CVodeGetNumNonlinSolvConvFails(mem, &st.ncfn);

  CVodeFree(&mem);
  SUNLinSolFree(LS);
  SUNMatDestroy(J);
  N_VDestroy(y);
  SUNContext_Free(&ctx);
  return st;
}

int usage() {
  std::fprintf(stderr,
               "usage: friction_sleigh_cvode solve EPS RTOL ATOL TF REPEATS Y0..Y5 [defaults|every-step]\n"
               "       friction_sleigh_cvode check EPS Y0..Y5\n");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  Params p;
  if (std::strcmp(argv[1], "check") == 0) {
    if (argc != 9) return usage();
    p.eps = std::atof(argv[2]);
    double y[6], f[6], J[36] = {0};
    for (int i = 0; i < 6; ++i) y[i] = std::atof(argv[3 + i]);
    sleigh_rhs(y, f, p);
    sleigh_jac(y, p, [&J](int i, int j, double v) { J[6 * i + j] = v; });
    std::printf("rhs");
    for (double v : f) std::printf(" %.17g", v);
    std::printf("\njac");
    for (double v : J) std::printf(" %.17g", v);
    std::printf("\n");
    return 0;
  }
  if (std::strcmp(argv[1], "solve") != 0 || (argc != 13 && argc != 14)) return usage();
  const bool fresh_jacobian = argc == 14 && std::strcmp(argv[13], "every-step") == 0;
  p.eps = std::atof(argv[2]);
  const double rtol = std::atof(argv[3]), atol = std::atof(argv[4]), tf = std::atof(argv[5]);
  const int repeats = std::atoi(argv[6]);
  double y0[6], yf[6];
  for (int i = 0; i < 6; ++i) y0[i] = std::atof(argv[7 + i]);

  std::vector<double> times;
  Stats st;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    st = solve_once(p, rtol, atol, tf, y0, yf, fresh_jacobian);
    const auto stop = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double>(stop - start).count());
  }
  std::printf("final");
  for (double v : yf) std::printf(" %.17g", v);
  std::printf("\nstats %ld %ld %ld %ld %ld %ld %ld\n", st.nst, st.nfe, st.nje, st.nsetups, st.netf, st.nni, st.ncfn);
  std::printf("times");
  for (double v : times) std::printf(" %.9e", v);
  std::printf("\n");
  return 0;
}
