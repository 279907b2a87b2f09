#pragma once
// Numbers in messages: six significant digits, so that t = 1e-9 and h = 3e-14 stay readable
// (std::to_string prints fixed-point and would show both as 0.000000).
#include <sstream>
#include <string>

namespace nonholo {

inline std::string format_number(double x) {
  std::ostringstream os;
  os.precision(6);
  os << x;
  return os.str();
}

}  // namespace nonholo
