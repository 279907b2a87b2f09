#include "nonholo/tape/tape_name.hpp"

namespace nonholo {

const char* to_string(TapeName name) {
  switch (name) {
    case TapeName::Dynamics: return "dynamics";
    case TapeName::Full: return "full";
    case TapeName::Constraints: return "constraints";
    case TapeName::Jacobian: return "jacobian";
    case TapeName::Projection: return "projection";
    case TapeName::SplitBase: return "split_base";
    case TapeName::VelocityPart: return "velocity_part";
    case TapeName::Slip: return "slip";
    case TapeName::Frame: return "frame";
    case TapeName::FrameValues: return "frame_values";
    case TapeName::FrameAlong: return "frame_along";
    case TapeName::Rhs: return "rhs";
  }
  return "?";
}

const std::vector<TapeName>& all_tape_names() {
  static const std::vector<TapeName> names{TapeName::Dynamics,   TapeName::Full,         TapeName::Constraints,
                                           TapeName::Jacobian,   TapeName::Projection,   TapeName::SplitBase,
                                           TapeName::VelocityPart, TapeName::Slip,       TapeName::Frame,
                                           TapeName::FrameValues, TapeName::FrameAlong, TapeName::Rhs};
  return names;
}

std::optional<TapeName> tape_name_from_string(const std::string& text) {
  for (TapeName name : all_tape_names())
    if (text == to_string(name)) return name;
  return std::nullopt;
}

std::string quoted_tape_names(const std::vector<TapeName>& names, const char* last_separator) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? last_separator : ", ";
    out += std::string("'") + to_string(names[i]) + "'";
  }
  return out;
}

}  // namespace nonholo
