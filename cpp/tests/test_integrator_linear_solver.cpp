// nonholo's integrator (its own dense matrix, LU solver, linear-system function and compiled
// vector operations: dense_lu.hpp, serial_ops.hpp) against the path it replaced: CVODE BDF with
// SUNDIALS' dense matrix and solver, CVLS's own linear system (a Jacobian function calling the
// model's jacobian()) and plain serial vectors. On the friction sleigh (stiff, eps = 1e-6 and
// 1e-3), with the Jacobian refreshed every step and with CVODE's default reuse (which runs the
// saved-Jacobian branch), both take the same steps, Jacobians, setups and Newton iterations and
// end on the same bits; and a model whose Jacobian throws ends the run with CV_LSETUP_FAIL and
// the model's message instead of crashing.
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "check.hpp"
#include "nonholo/integrator.hpp"
#include "nonholo/models/friction.hpp"
#include "nonholo/sundials/compat.hpp"
#include "nonholo/sundials/handles.hpp"
#include "test_systems.hpp"

using namespace nonholo;

namespace {

struct Reference {
  const Model& model;
  const std::vector<double>& params;
  std::unique_ptr<Workspace> ws;
};

int reference_rhs(sun::real t, N_Vector y, N_Vector ydot, void* data) {
  auto* R = static_cast<Reference*>(data);
  R->model.rhs(t, N_VGetArrayPointer(y), R->params.data(), N_VGetArrayPointer(ydot), *R->ws);
  return 0;
}

int reference_jac(sun::real t, N_Vector y, N_Vector, SUNMatrix J, void* data, N_Vector, N_Vector, N_Vector) {
  auto* R = static_cast<Reference*>(data);
  R->model.jacobian(t, N_VGetArrayPointer(y), R->params.data(), SUNDenseMatrix_Data(J), *R->ws);
  return 0;
}

struct Run {
  SolverStats stats;
  std::vector<double> y;
};

// CVODE BDF as the integrator sets it up, with SUNDIALS' dense matrix and solver.
Run reference_run(const Model& model, const std::vector<double>& params, const std::vector<double>& y0, double tf,
                  const IntegrationOptions& opt) {
  SUNContext raw = nullptr;
  sun::create_context(&raw);
  sun::ContextPtr ctx(raw);
  const int n = model.n_states();
  sun::VectorPtr y(N_VNew_Serial(n, ctx.get()));
  std::copy(y0.begin(), y0.end(), N_VGetArrayPointer(y.get()));
  sun::MatrixPtr J(SUNDenseMatrix(n, n, ctx.get()));
  sun::LinearSolverPtr ls(SUNLinSol_Dense(y.get(), J.get(), ctx.get()));
  Reference ref{model, params, model.workspace()};
  sun::CvodePtr mem(CVodeCreate(CV_BDF, ctx.get()));
  sun::MessageSink sink;
  sun::capture_messages(ctx.get(), mem.get(), &sink);
  CVodeInit(mem.get(), reference_rhs, 0.0, y.get());
  CVodeSetUserData(mem.get(), &ref);
  CVodeSStolerances(mem.get(), opt.rtol, opt.atol[0]);
  CVodeSetStopTime(mem.get(), tf);
  CVodeSetMaxNumSteps(mem.get(), opt.max_steps);
  CVodeSetLinearSolver(mem.get(), ls.get(), J.get());
  CVodeSetJacFn(mem.get(), reference_jac);
  CVodeSetJacEvalFrequency(mem.get(), opt.jacobian_frequency);
  CVodeSetLSetupFrequency(mem.get(), opt.setup_frequency);
  sun::real t = 0.0;
  Run r;
  const int flag = CVode(mem.get(), tf, y.get(), &t, CV_NORMAL);
  NONHOLO_CHECK(flag == CV_SUCCESS || flag == CV_TSTOP_RETURN);
  NONHOLO_CHECK_EQ(t, tf);
  CVodeGetNumSteps(mem.get(), &r.stats.n_steps);
  CVodeGetNumRhsEvals(mem.get(), &r.stats.n_rhs);
  CVodeGetNumJacEvals(mem.get(), &r.stats.n_jac);
  CVodeGetNumLinSolvSetups(mem.get(), &r.stats.n_lin_setups);
  CVodeGetNumNonlinSolvIters(mem.get(), &r.stats.n_nonlin_iters);
  r.y.assign(N_VGetArrayPointer(y.get()), N_VGetArrayPointer(y.get()) + n);
  mem.reset();
  return r;
}

// The friction model whose Jacobian fails (a model error in jacobian(), as a singular metric would raise).
class FailingJacobian : public FrictionModel<> {
 public:
  using FrictionModel<>::FrictionModel;
  void jacobian(double, const double*, const double*, double*, Workspace&) const override {
    throw std::runtime_error("the Jacobian is not available here");
  }
};

}  // namespace

int main() {
  auto system = testing::sleigh();
  const FrictionModel<> model(system);
  const std::vector<double> y0 = {0.0, 0.0, 0.0, -1.5, 0.0, 1.0};
  const double tf = 20.0;

  for (double eps : {1e-6, 1e-3}) {
    std::vector<double> params = testing::sleigh_params();
    params.push_back(eps);
    for (long frequency : {1L, 0L}) {
      IntegrationOptions opt;
      opt.method = Method::Bdf;
      // 1: a Jacobian and a setup every step (the policy's mode for the sleigh); else CVODE's defaults
      opt.jacobian_frequency = frequency == 1 ? 1 : 51;
      opt.setup_frequency = frequency == 1 ? 1 : 20;
      const SimulationOutput out = integrate(model, params, 0.0, tf, y0, {tf}, {}, opt);
      const Run ref = reference_run(model, params, y0, tf, opt);
      NONHOLO_CHECK_EQ(out.status, 0);
      NONHOLO_CHECK_EQ(out.stats.n_steps, ref.stats.n_steps);
      NONHOLO_CHECK_EQ(out.stats.n_rhs, ref.stats.n_rhs);
      NONHOLO_CHECK_EQ(out.stats.n_jac, ref.stats.n_jac);
      NONHOLO_CHECK_EQ(out.stats.n_lin_setups, ref.stats.n_lin_setups);
      NONHOLO_CHECK_EQ(out.stats.n_nonlin_iters, ref.stats.n_nonlin_iters);
      NONHOLO_CHECK(out.y.size() == 6 && std::memcmp(out.y.data(), ref.y.data(), 6 * sizeof(double)) == 0);
      // with CVODE's defaults, setups that reuse the saved Jacobian (jok) ran
      if (frequency == 0) NONHOLO_CHECK(out.stats.n_lin_setups > out.stats.n_jac + 10);
      NONHOLO_CHECK(out.stats.n_steps > 100);
    }
  }

  {  // a Jacobian that throws: a failed run with the reason, no crash
    std::vector<double> params = testing::sleigh_params();
    params.push_back(1e-6);
    const FailingJacobian failing(system);
    IntegrationOptions opt;
    opt.method = Method::Bdf;
    const SimulationOutput out = integrate(failing, params, 0.0, tf, y0, {tf}, {}, opt);
    NONHOLO_CHECK_EQ(out.status, -1);
    NONHOLO_CHECK_EQ(out.flag_name, std::string("CV_LSETUP_FAIL"));
    NONHOLO_CHECK(out.message.find("the Jacobian is not available here") != std::string::npos);
  }

  if (testing::failures == 0) std::cout << "test_integrator_linear_solver: all checks passed" << std::endl;
  return testing::failures;
}
