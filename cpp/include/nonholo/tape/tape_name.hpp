// The names of the tapes a system or a model evaluates (what model.compile() translates to C).
// C++ passes them as TapeName; the strings ("dynamics", "slip", ...) exist only at the binding
// boundary (cpp/bindings), where Python names the tapes.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nonholo {

enum class TapeName {
  // a MechanicalSystem's (MechanicalSystem::tape_names)
  Dynamics,
  Full,
  Constraints,
  Jacobian,
  Projection,
  SplitBase,
  VelocityPart,
  // a model's own: a CompiledSlip's, an anholonomic frame's, the fused right-hand side's
  Slip,
  Frame,
  FrameValues,
  FrameAlong,
  Rhs,
};

// "dynamics", "full", "constraints", "jacobian", "projection", "split_base", "velocity_part",
// "slip", "frame", "frame_values", "frame_along", "rhs".
const char* to_string(TapeName name);
// The TapeName spelled `text`, or nothing for an unknown name.
std::optional<TapeName> tape_name_from_string(const std::string& text);
// Every TapeName, in the order of the enumeration.
const std::vector<TapeName>& all_tape_names();
// 'a', 'b' or 'c': the names quoted and joined, for error messages.
std::string quoted_tape_names(const std::vector<TapeName>& names, const char* last_separator = ", ");

}  // namespace nonholo
