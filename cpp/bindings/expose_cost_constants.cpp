// nonholo._core.cost_constants(): the fitted constants of cost_constants.hpp, for the rules the
// Python package applies (sparse="auto", compile="auto") and for tools/measure_cost_constants.py,
// which prints them beside what it measures.
#include "bindings.hpp"
#include "nonholo/cost_constants.hpp"

void expose_cost_constants(py::module_& m) {
  m.def("cost_constants", [] {
    namespace c = nonholo::cost;
    py::dict d;
    d["call"] = c::kCall;
    d["instruction"] = c::kInstruction;
    d["flop"] = c::kFlop;
    d["dual_call"] = c::kDualCall;
    d["dual_instruction"] = c::kDualInstruction;
    d["dual_flop"] = c::kDualFlop;
    d["friction_implicit_call"] = c::kFrictionImplicitCall;
    d["friction_jacobian_instruction"] = c::kFrictionJacobianInstruction;
    d["friction_jacobian_flop"] = c::kFrictionJacobianFlop;
    d["nonholonomic_implicit_call"] = c::kNonholonomicImplicitCall;
    d["nonholonomic_jacobian_instruction"] = c::kNonholonomicJacobianInstruction;
    d["nonholonomic_jacobian_flop"] = c::kNonholonomicJacobianFlop;
    d["compiled_jacobian_ratio"] = c::kCompiledJacobianRatio;
    d["elimination_overhead_flops"] = c::kEliminationOverheadFlops;
    d["step_ns"] = c::kStepNanoseconds;
    d["setup_call_ns"] = c::kSetupCall;
    d["adams_step_call_ns"] = c::kAdamsStepCall;
    d["adams_step_per_state_ns"] = c::kAdamsStepPerState;
    d["explicit_rk_step_ratio"] = c::kExplicitRkStepRatio;
    d["sparse_min_coordinates"] = c::kSparseMinCoordinates;
    d["sparse_max_density"] = c::kSparseMaxDensity;
    d["compile_saved_ns_per_instruction"] = c::kCompileSavedNsPerInstruction;
    d["compile_build_ns_per_instruction"] = c::kCompileBuildNsPerInstruction;
    d["compile_load_ns_per_instruction"] = c::kCompileLoadNsPerInstruction;
    d["compile_load_ns"] = c::kCompileLoadNs;
    return d;
  }, "The core's fitted cost constants (cpp/include/nonholo/cost_constants.hpp: their unit, "
     "nanoseconds of the fitting machine or dense operations, and where each came from), by name.");
}
