#include "cvode_callbacks.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "nonholo/errors.hpp"
#include "nonholo/sundials/dense_lu.hpp"
#include "nonholo/sundials/second_order_lu.hpp"
#include "nonholo/sundials/sparse_lu.hpp"
#include "nonholo/sundials/serial_ops.hpp"

namespace nonholo::cvode {

int rhs_callback(sun::real t, N_Vector y, N_Vector ydot, void* data) {
  auto* P = static_cast<Problem*>(data);
  try {
    // a state that overflowed (a trial state of a step far too large, e.g. the friction model at
    // an eps near the underflow limit) is reported as such, not by what the model makes of it
    // (a metric "not positive definite at q = [nan, ...]")
    const double* ys = N_VGetArrayPointer(y);
    for (int i = 0; i < P->model.n_states(); ++i) {
      if (!std::isfinite(ys[i])) {
        ++P->n_nonfinite;
        if (P->nonfinite.empty()) {
          std::ostringstream os;
          os << "the state is not finite (component " << i << ") at t = " << t
             << ": the solver's trial state overflowed (the model's scales may be beyond double precision)";
          P->nonfinite = os.str();
        }
        return 1;  // recoverable: CVODE retries with a smaller step
      }
    }
    P->model.rhs(t, N_VGetArrayPointer(y), P->params.data(), N_VGetArrayPointer(ydot), *P->ws);
    const double* f = N_VGetArrayPointer(ydot);
    for (int i = 0; i < P->model.n_states(); ++i) {
      if (!std::isfinite(f[i])) {
        ++P->n_nonfinite;
        if (P->nonfinite.empty()) {
          std::ostringstream os;
          os << "the right-hand side is not finite (component " << i << ") at t = " << t;
          P->nonfinite = os.str();
        }
        return 1;  // recoverable: CVODE retries with a smaller step
      }
    }
    return 0;
  } catch (...) {
    P->error = std::current_exception();
    return -1;
  }
}

// CVODE's linear system A = I - gamma J (CVLS's own linear-system function does the same with a
// saved copy of J in a second SUNMatrix, zeroing A first): J is refreshed into the problem's
// storage when CVODE asks for it (jok false; CVODE counts it through jcur), then A is formed in
// one pass and factored by the linear solver's setup (dense_lu.hpp; for a second-order model
// from kSecondOrderMinCoordinates on, its n x n Schur complement: second_order_lu.hpp).
int linsys_callback(sun::real t, N_Vector y, N_Vector, SUNMatrix A, sunbooleantype jok, sunbooleantype* jcur,
                    sun::real gamma, void* data, N_Vector, N_Vector, N_Vector) {
  auto* P = static_cast<Problem*>(data);
  try {
    const bool sparse = sun::is_sparse_matrix(A);
    if (!jok) {
      if (sparse)
        P->parts.sparse_jacobian->sparse_jacobian(t, N_VGetArrayPointer(y), P->params.data(), P->jacobian.data(),
                                                  *P->ws);
      else P->model.jacobian(t, N_VGetArrayPointer(y), P->params.data(), P->jacobian.data(), *P->ws);
      *jcur = SUNTRUE;
    } else {
      *jcur = SUNFALSE;
    }
    if (sparse) sun::sparse_scale_add_identity(-gamma, P->jacobian.data(), A);
    else if (sun::is_second_order_matrix(A)) sun::second_order_form(gamma, P->jacobian.data(), A);
    else sun::scale_add_identity(-gamma, P->jacobian.data(), P->model.n_states(), sun::dense_matrix_data(A));
    return 0;
  } catch (...) {
    P->error = std::current_exception();
    return -1;
  }
}

int sensitivity_callback(int, sun::real t, N_Vector y, N_Vector, N_Vector* yS, N_Vector* ySdot, void* data, N_Vector,
                         N_Vector) {
  auto* P = static_cast<Problem*>(data);
  try {
    return P->sensitivity->evaluate(t, y, yS, ySdot);
  } catch (...) {
    P->error = std::current_exception();
    return -1;
  }
}

int root_callback(sun::real t, N_Vector y, sun::real* g, void* data) {
  auto* P = static_cast<Problem*>(data);
  try {
    for (std::size_t i = 0; i < P->events.size(); ++i) g[i] = P->root_value(i, t, N_VGetArrayPointer(y));
    return 0;
  } catch (...) {
    P->error = std::current_exception();
    return -1;
  }
}

int proj_callback(sun::real t, N_Vector y, N_Vector corr, sun::real, N_Vector err, void* data) {
  auto* P = static_cast<Problem*>(data);
  try {
    const double* weights = nullptr;
    if (P->weights != nullptr && CVodeGetErrWeights(P->cvode_mem, P->weights) == CV_SUCCESS)
      weights = N_VGetArrayPointer(P->weights);
    double* e = err ? N_VGetArrayPointer(err) : nullptr;
    if (P->project_velocities)
      P->parts.constraints->project(t, N_VGetArrayPointer(y), P->params.data(), N_VGetArrayPointer(corr), e, weights,
                                    *P->ws);
    else
      N_VConst(0.0, corr);
    if (P->unit_norm) project_unit_norm(*P->unit_norm, N_VGetArrayPointer(y), N_VGetArrayPointer(corr), e);
    return 0;
  } catch (...) {
    P->error = std::current_exception();
    return -1;
  }
}

void check(int flag, const char* function) {
  if (flag < 0) throw SolverError(std::string("CVODE setup failed in ") + function + " (flag " + std::to_string(flag) + ")", 0.0);
}

std::string flag_name(int flag) {
  char* name = CVodeGetReturnFlagName(flag);
  std::string s = name ? name : "UNKNOWN";
  free(name);
  return s;
}

std::string advice(int flag, const Model& model, Method method) {
  switch (flag) {
    case CV_TOO_MUCH_WORK:
      if (method == Method::Adams)
        return model.stiff() ? "this model is stiff: use method='bdf' (or 'auto')"
                             : "raise max_steps, or use method='auto' (DOP853 takes fewer steps on a smooth run: "
                               "an outside probe's rolling disc over t = 1e4 took 243,000 where Adams' 500,000 reached "
                               "t = 5934), or method='bdf' if the problem is stiff";
      return "raise max_steps or loosen rtol; if the steps became tiny, the model may be singular ahead";
    case CV_TOO_MUCH_ACC: return "the requested accuracy is below machine precision; loosen rtol/atol";
    case CV_ERR_FAILURE:
      return "error test failures at the minimum step: a singularity, a discontinuity, or a blow-up of the solution";
    case CV_CONV_FAILURE:
      return std::string(method == Method::Adams ? "the fixed-point" : "the Newton") +
             " iteration failed to converge repeatedly: the model may be singular here, or loosen rtol";
    case CV_RHSFUNC_FAIL:
    case CV_FIRST_RHSFUNC_ERR:
    case CV_REPTD_RHSFUNC_ERR:
    case CV_UNREC_RHSFUNC_ERR:
      return "the model could not be evaluated (non-finite values or singular data)";
    case CV_PROJ_MEM_NULL:
    case CV_PROJFUNC_FAIL:
    case CV_REPTD_PROJFUNC_ERR:
      return "projection onto the constraint set failed: the constraints may be singular here";
    default: return "";
  }
}

}  // namespace nonholo::cvode
