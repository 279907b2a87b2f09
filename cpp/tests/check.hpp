// A minimal check macro for the C++ tests: reports file, line and the expression, and counts
// failures; main() returns the count (ctest fails on non-zero).
#pragma once

#include <cmath>
#include <iostream>

namespace nonholo::testing {
inline int failures = 0;
}

#define NONHOLO_CHECK(cond)                                                                      \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      ++nonholo::testing::failures;                                                              \
      std::cerr << __FILE__ << ":" << __LINE__ << ": check failed: " #cond << std::endl;        \
    }                                                                                            \
  } while (0)

#define NONHOLO_CHECK_EQ(a, b)                                                                   \
  do {                                                                                           \
    const auto va = (a);                                                                         \
    const auto vb = (b);                                                                         \
    if (!(va == vb)) {                                                                           \
      ++nonholo::testing::failures;                                                              \
      std::cerr << __FILE__ << ":" << __LINE__ << ": " #a " == " #b " failed: " << va << " != " << vb \
                << std::endl;                                                                    \
    }                                                                                            \
  } while (0)
