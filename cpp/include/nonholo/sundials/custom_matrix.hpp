// What nonholo's SUNMatrix types (dense_lu.hpp, sparse_lu.hpp, second_order_lu.hpp) share: an
// identity per content type (the getid function, which is_custom_matrix compares) and the
// ownership of the content; each type sets its own operations.
#pragma once

#include <memory>

#include <sundials/sundials_matrix.h>

namespace nonholo::sun {

namespace matrix_detail {

template <class Content>
SUNMatrix_ID getid(SUNMatrix) {
  return SUNMATRIX_CUSTOM;
}

template <class Content>
void destroy(SUNMatrix A) {
  if (A == nullptr) return;
  std::unique_ptr<Content> owned(static_cast<Content*>(A->content));
  A->content = nullptr;
  SUNMatFreeEmpty(A);
}

}  // namespace matrix_detail

// A matrix owning `content` (freed with it), with getid and destroy set; null when SUNDIALS
// cannot allocate it.
template <class Content>
SUNMatrix new_custom_matrix(SUNContext ctx, std::unique_ptr<Content> content) {
  SUNMatrix A = SUNMatNewEmpty(ctx);
  if (A == nullptr) return nullptr;
  A->ops->getid = matrix_detail::getid<Content>;
  A->ops->destroy = matrix_detail::destroy<Content>;
  A->content = content.release();
  return A;
}

// True for a matrix made by new_custom_matrix with this content type.
template <class Content>
bool is_custom_matrix(SUNMatrix A) {
  return A != nullptr && A->ops != nullptr && A->ops->getid == matrix_detail::getid<Content>;
}

}  // namespace nonholo::sun
