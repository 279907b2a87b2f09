// Owners for SUNDIALS objects: one unique_ptr type per kind, with the matching destroy call.
// Declaration order in a class is destruction order reversed, so a holder declares the
// context first and the CVODE memory last (it is freed first, while everything it uses lives).
#pragma once

#include <memory>
#include <type_traits>

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nonlinearsolver.h>

namespace nonholo::sun {

struct ContextDeleter {
  void operator()(SUNContext ctx) const { SUNContext_Free(&ctx); }
};
struct VectorDeleter {
  void operator()(N_Vector v) const { N_VDestroy(v); }
};
struct MatrixDeleter {
  void operator()(SUNMatrix m) const { SUNMatDestroy(m); }
};
struct LinearSolverDeleter {
  void operator()(SUNLinearSolver ls) const { SUNLinSolFree(ls); }
};
struct NonlinearSolverDeleter {
  void operator()(SUNNonlinearSolver nls) const { SUNNonlinSolFree(nls); }
};
struct CvodeDeleter {
  void operator()(void* mem) const { CVodeFree(&mem); }
};

using ContextPtr = std::unique_ptr<std::remove_pointer_t<SUNContext>, ContextDeleter>;
using VectorPtr = std::unique_ptr<std::remove_pointer_t<N_Vector>, VectorDeleter>;
using MatrixPtr = std::unique_ptr<std::remove_pointer_t<SUNMatrix>, MatrixDeleter>;
using LinearSolverPtr = std::unique_ptr<std::remove_pointer_t<SUNLinearSolver>, LinearSolverDeleter>;
using NonlinearSolverPtr = std::unique_ptr<std::remove_pointer_t<SUNNonlinearSolver>, NonlinearSolverDeleter>;
using CvodePtr = std::unique_ptr<void, CvodeDeleter>;

}  // namespace nonholo::sun
