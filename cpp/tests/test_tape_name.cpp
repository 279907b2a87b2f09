// Tape names (tape/tape_name.hpp): every TapeName has one spelling and reads back from it, unknown
// spellings give nothing, and the system's names are a prefix of the enumeration (the order
// Model::tape_names and the error messages list them in).
#include <set>
#include <string>

#include "check.hpp"
#include "nonholo/mechanical_system.hpp"
#include "nonholo/tape/tape_name.hpp"

using nonholo::TapeName;

int main() {
  std::set<std::string> spellings;
  for (TapeName name : nonholo::all_tape_names()) {
    const std::string text = nonholo::to_string(name);
    NONHOLO_CHECK(text != "?");
    NONHOLO_CHECK(spellings.insert(text).second);  // no two names spelled alike
    const auto back = nonholo::tape_name_from_string(text);
    NONHOLO_CHECK(back.has_value() && *back == name);
  }
  NONHOLO_CHECK_EQ(spellings.size(), std::size_t(12));
  NONHOLO_CHECK(!nonholo::tape_name_from_string("everything").has_value());
  NONHOLO_CHECK(!nonholo::tape_name_from_string("Dynamics").has_value());  // case matters
  NONHOLO_CHECK(!nonholo::tape_name_from_string("").has_value());
  NONHOLO_CHECK(*nonholo::tape_name_from_string("split_base") == TapeName::SplitBase);

  const auto& system = nonholo::MechanicalSystem::tape_names();
  NONHOLO_CHECK_EQ(system.size(), std::size_t(7));
  for (std::size_t i = 0; i < system.size(); ++i) NONHOLO_CHECK(system[i] == nonholo::all_tape_names()[i]);

  NONHOLO_CHECK_EQ(nonholo::quoted_tape_names({TapeName::Frame}), std::string("'frame'"));
  NONHOLO_CHECK_EQ(nonholo::quoted_tape_names({TapeName::Slip, TapeName::Frame, TapeName::Rhs}, " or "),
                   std::string("'slip', 'frame' or 'rhs'"));
  NONHOLO_CHECK_EQ(nonholo::quoted_tape_names({}), std::string(""));
  return nonholo::testing::failures;
}
