// What CVODE calls back during a run (integration.hpp): the right-hand side, the linear system
// I - gamma J, forward sensitivities, event functions and the projection, all on one Problem;
// and the translation of CVODE's return flags into messages and advice.
#pragma once

#include <exception>
#include <limits>
#include <string>
#include <vector>

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>

#include "nonholo/event_values.hpp"
#include "nonholo/integrator.hpp"
#include "nonholo/model.hpp"
#include "nonholo/point_geometry.hpp"
#include "nonholo/sensitivity.hpp"
#include "nonholo/sundials/compat.hpp"
#include "nonholo/unit_norm.hpp"

namespace nonholo::cvode {

// Everything a CVODE callback needs; exceptions never cross into CVODE: they are stored here
// and the callback returns -1.
struct Problem {
  const Model& model;
  const ModelParts parts;  // the model's parts, asked for once
  const std::vector<double>& params;
  const std::vector<EventSpec>& events;
  WorkspaceLease ws;
  EventValues event_values;
  std::exception_ptr error;
  std::string nonfinite;  // first non-finite right-hand side, for the failure message
  long n_nonfinite = 0;   // non-finite right-hand sides so far
  void* cvode_mem = nullptr;
  N_Vector weights = nullptr;  // CVODE's error weights, for the projection
  SensitivityRun* sensitivity = nullptr;  // forward sensitivities, when requested
  std::vector<double> jacobian;                // the last Jacobian (BDF), column-major
  bool project_velocities = false;             // onto A v = b (drift control)
  const std::vector<UnitNormGroup>* unit_norm = nullptr;  // then positions onto |q_g| = 1

  Problem(const Model& m, const std::vector<double>& p, const std::vector<EventSpec>& e)
      : model(m), parts(m.parts()), params(p), events(e), ws(m.borrow_workspace()), event_values(m, parts, p, e) {}

  // g_i(t, y) for CVODE's root finding (event_values.hpp); callback_error there keeps a user's exception.
  double event_value(std::size_t i, double t, const double* y) { return event_values(i, t, y, *ws); }

  // The last root CVODE returned of each g_i (Integration::step), until g_i is seen nonzero past
  // it: meanwhile a value of exactly zero at or past the root's t_r (in the run's direction) is
  // read as the smallest normal number of the sign g_i crossed to. After a root, CVODE checks g at
  // the start of every later step and, where it is exactly zero there, again a close-root offset
  // later; zero at both stops the run with CV_ILL_INPUT ("root found at and very near t"). A g_i
  // that moves only in steps of its rounding is still exactly zero there: theta - 0.3 changes by
  // one ulp of 0.3 in 4e-17 s at theta' = 1.5, and theta - 1.5 t, zero but for rounding, stays
  // zero over whole steps.
  struct PassedRoot {
    double t = 0.0;
    double direction = 0.0;  // the run's: +1 forward, -1 backward
    int sign = 0;            // g_i's sign after the crossing (CVodeGetRootInfo); 0: none
  };
  std::vector<PassedRoot> passed_roots;
  double root_value(std::size_t i, double t, const double* y) {
    const double g = event_value(i, t, y);
    if (i >= passed_roots.size() || passed_roots[i].sign == 0) return g;
    PassedRoot& r = passed_roots[i];
    if ((t - r.t) * r.direction < 0.0) return g;
    if (g != 0.0) {
      r.sign = 0;
      return g;
    }
    return r.sign * std::numeric_limits<double>::min();
  }
};

// The callbacks, with CVODE's signatures; `data` is the Problem.
int rhs_callback(sun::real t, N_Vector y, N_Vector ydot, void* data);
int linsys_callback(sun::real t, N_Vector y, N_Vector, SUNMatrix A, sunbooleantype jok, sunbooleantype* jcur,
                    sun::real gamma, void* data, N_Vector, N_Vector, N_Vector);
int sensitivity_callback(int, sun::real t, N_Vector y, N_Vector, N_Vector* yS, N_Vector* ySdot, void* data, N_Vector,
                         N_Vector);
int root_callback(sun::real t, N_Vector y, sun::real* g, void* data);
int proj_callback(sun::real t, N_Vector y, N_Vector corr, sun::real, N_Vector err, void* data);

// Throws SolverError for a negative flag of a CVODE set-up call.
void check(int flag, const char* function);
// CVODE's name of a return flag ("CV_TOO_MUCH_WORK").
std::string flag_name(int flag);
// What a failure means and what to do, in the words a user needs (diffrax/AMICI style).
std::string advice(int flag, const Model& model, Method method);

}  // namespace nonholo::cvode
