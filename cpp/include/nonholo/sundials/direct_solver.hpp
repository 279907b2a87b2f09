// What nonholo's direct SUNLinearSolvers (dense_lu.hpp, sparse_lu.hpp) share: the type and id,
// the last flag, and the ownership of their content, around the two operations that differ
// (setup: factor A; solve: x = A^-1 b with those factors).
#pragma once

#include <memory>

#include <sundials/sundials_linearsolver.h>

#include "nonholo/sundials/handles.hpp"

namespace nonholo::sun {

namespace direct_detail {

inline SUNLinearSolver_Type type(SUNLinearSolver) { return SUNLINEARSOLVER_DIRECT; }
inline SUNLinearSolver_ID id(SUNLinearSolver) { return SUNLINEARSOLVER_CUSTOM; }

template <class Content>
int initialize(SUNLinearSolver S) {
  static_cast<Content*>(S->content)->last_flag = SUNLS_SUCCESS;
  return SUNLS_SUCCESS;
}

template <class Content>
sunindextype last_flag(SUNLinearSolver S) {
  return static_cast<Content*>(S->content)->last_flag;
}

template <class Content>
int free_solver(SUNLinearSolver S) {
  if (S == nullptr) return SUNLS_SUCCESS;
  std::unique_ptr<Content> owned(static_cast<Content*>(S->content));
  S->content = nullptr;
  SUNLinSolFreeEmpty(S);
  return SUNLS_SUCCESS;
}

}  // namespace direct_detail

// A direct solver owning `content` (a type with a `sunindextype last_flag`), with the given setup,
// solve and space operations; null when SUNDIALS cannot allocate it.
template <class Content>
LinearSolverPtr make_direct_solver(SUNContext ctx, std::unique_ptr<Content> content,
                                   int (*setup)(SUNLinearSolver, SUNMatrix),
                                   int (*solve)(SUNLinearSolver, SUNMatrix, N_Vector, N_Vector, sunrealtype),
                                   int (*space)(SUNLinearSolver, long*, long*)) {
  SUNLinearSolver S = SUNLinSolNewEmpty(ctx);
  if (S == nullptr) return nullptr;
  S->ops->gettype = direct_detail::type;
  S->ops->getid = direct_detail::id;
  S->ops->initialize = direct_detail::initialize<Content>;
  S->ops->setup = setup;
  S->ops->solve = solve;
  S->ops->lastflag = direct_detail::last_flag<Content>;
  S->ops->space = space;
  S->ops->free = direct_detail::free_solver<Content>;
  S->content = content.release();
  return LinearSolverPtr(S);
}

// The content of a solver made by make_direct_solver<Content>.
template <class Content>
Content& solver_content(SUNLinearSolver S) {
  return *static_cast<Content*>(S->content);
}

}  // namespace nonholo::sun
