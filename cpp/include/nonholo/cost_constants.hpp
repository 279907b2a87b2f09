// Every fitted cost constant of the core and of the Python package, in one place: what the method
// choices and the Jacobian policy weigh (a right-hand side, a dual or implicit Jacobian, a BDF step
// and its linear setup, an Adams step), the elimination's overhead, the threshold of the compiled
// Jacobian, and the rules Python applies (sparse="auto", compile="auto"; read through
// _core.cost_constants()). The code that applies them stays where it was (model.cpp,
// integrate/method_control.hpp, explicit_rk.hpp, coordinate_partition.hpp; Python's
// system/sparsity.py and expressions/compiled.py); each names its constants from here.
//
// Unit: nanoseconds of the machine the constants were fitted on (2-core x86-64, GCC -O3, the
// fused program interpreter of tape.hpp, Eigen with dynamic sizes), or the dense operations
// (flops: a multiply-add counted as two) that a formula counts. Only ratios enter the choices, so a
// uniformly faster or slower machine changes none of them.
//
// How to measure them again: tools/measure_cost_constants.py (on the optimized build that `make
// install` makes) measures what each constant stands for, and prints it beside the value here:
// the right-hand side and the dual and implicit Jacobians of the models (_core.diagnostics.
// time_evaluations), a BDF step's fixed cost and a linear setup (from whole runs of the friction
// sleigh and chains, their counters and the models' measured evaluations), the Adams step's.
// benchmarks/jacobian_choice.py, reduced_rk.py, compile_auto.py and platoon_scaling.py are the
// fuller studies the fits below come from.
//
// Its run on the optimized build (2026-12-02, 2-core machine at load 6-7, issue 42): right-hand
// sides at 0.49-0.79 of these estimates (the machine scale), dual and implicit Jacobians at 0.9-2.0
// of theirs in right-hand sides (sleigh, chains N = 2-16, both models); in the constants' unit a BDF
// step's fixed cost 1.0-1.6 us and a setup 0.3-0.7 us (0.5-0.8x of kStepNanoseconds, 0.3-0.65x of
// setup_nanoseconds; friction chains N = 2, 4, 8), an Adams step 1.2-4.4 us (0.35-0.6x of
// adams_step_ns; nonholonomic sleigh and chains). Not refitted yet: the BDF and Adams constants are
// still those of SUNDIALS' unoptimized build, kept so that the policy chooses as before (a refit
// changes the refresh policy's and DOP853's choices, and the tests pinned to them).
#pragma once

namespace nonholo::cost {

// ---- A right-hand side (model.cpp) -----------------------------------------------------------
// Fitted by least squares on relative error to the medians of _core.time_evaluations for the
// sleigh and the knife-edge chain N = 1, 2, 4, 8, 16 in both models (within 30%; 0.4-1.0 of the
// measured time on the other dense built-in systems).
constexpr double kCall = 124.0;        // fixed cost of a right-hand side (dispatch, small dynamic objects)
constexpr double kInstruction = 0.56;  // per dynamics-tape instruction, in doubles
constexpr double kFlop = 0.86;         // per dense operation of the model's linear algebra

// ---- A dual-number Jacobian (model.cpp) ------------------------------------------------------
// Per chunk of kJacobianChunk directions: a fixed cost, the dynamics tape and the dense work, each
// operation on kJacobianChunk + 1 doubles. Fitted by least squares on relative error to the dual
// Jacobians of the 25 dense built-in systems of benchmarks/jacobian_choice.py in both models (two
// runs, 100 measurements), each measured in right-hand sides and scaled by the estimated
// right-hand side, as the policy reads it: within 0.65-1.5, rms of the logarithm 0.17. The
// constants before (124, 0.51 and 7.3 ns, fitted to the sleigh and chains N <= 16) priced a dual
// tape operation as a double one and put the sleigh's dual Jacobian at 2.2 right-hand sides
// (measured 3.5-4.8), the rolling bodies' and the bicycle's at a third of their cost.
constexpr double kDualCall = 360.0;
constexpr double kDualInstruction = 2.9;
constexpr double kDualFlop = 3.0;

// ---- The implicit Jacobians (model.cpp) ------------------------------------------------------
// A fixed cost, a cost per Jacobian-tape instruction (the interpreter's, kInstruction) and a cost
// per multiply-add of the work outside the tape: the model's own factorization and solve, the
// derivative blocks by their nonzeros, and the 2n differentiated right-hand sides' dense products
// and solves (implicit_jacobian.hpp: *_jacobian_flops). The cost per operation is fitted by least
// squares on relative error to the friction chain N = 2, 4, 8, 16, 32, 48, 64, 96, 128 (eps 1e-4;
// measured 2.8, 3.4, 3.8, 3.9, 4.1, 4.6, 5.1, 7.5, 6.2 right-hand sides,
// _core.diagnostics.time_evaluations, medians of 9 batches; estimated within 0.76-1.15 of that);
// the nonholonomic model's dense work is of the same kinds (solves on 2n columns, products): the
// same cost per operation. The fixed costs are fitted (with the rest held) to the systems of
// benchmarks/jacobian_choice.py where they are most of the estimate (the sleigh, chains N <= 3 and
// the small vehicles: 22 friction and 16 nonholonomic measurements). With these, the implicit
// Jacobian is chosen on every dense built-in system, where it measures from a few percent (the
// rolling bodies, whose tapes dominate both) to 20x (the nonholonomic chain N = 32) faster than
// dual numbers.
constexpr double kFrictionImplicitCall = 460.0, kFrictionJacobianInstruction = 0.56, kFrictionJacobianFlop = 0.35;
constexpr double kNonholonomicImplicitCall = 390.0, kNonholonomicJacobianInstruction = 0.56,
                 kNonholonomicJacobianFlop = 0.35;

// ---- The compiled Jacobian (model.cpp, compiled_jacobian_pays) ---------------------------------
// model.compile() builds the implicit Jacobian's tape by default while it is at most this many
// times the dynamics tape: the C compiler's time is about proportional to the instructions
// (0.5-1 ms each at -O1, benchmarks/compile_levels.py), and a BDF run of the friction model spends
// about as much time in Jacobians as in right-hand sides (chain N = 8, eps 1e-4: 43 Jacobians of
// 4-5 right-hand sides each against 255 right-hand sides), so the Jacobian's build pays within a
// few times the runs the dynamics tape's does. The bicycle's (168k instructions, 18x its dynamics
// tape: minutes to build) is left out.
constexpr double kCompiledJacobianRatio = 4.0;

// ---- Elimination (coordinate_partition.hpp) ----------------------------------------------------
// eliminate()'s fixed cost beyond its operations, in flops (its ten small dense products and their
// set-up): the saddle-point solve, tuned for a few coordinates, stays below about a dozen.
constexpr double kEliminationOverheadFlops = 2000.0;

// ---- A BDF step and a linear setup (integrate/method_control.hpp, the Jacobian policy) ----------
// Fixed cost of one BDF step outside the model (CVODE's vector operations and error test, the
// Newton iteration's solves, the integration loop): benchmarks/friction_sleigh_cvode.cpp (6
// states, a hand-written model costing ~0.05 us an evaluation) takes 2.9 us a step with a Jacobian
// and a factorization on every step, of which ~0.9 us are the linear-solver setup.
constexpr double kStepNanoseconds = 2000.0;
// A linear setup of the dense solver for n states (CVODE's zeroing, copy and scaling of the
// matrix, the LU without pivot search cost): perf on the sleigh, 0.7 us at n = 6. Both constants
// were fitted with SUNDIALS' dense solver and serial vectors (unoptimized in Debian's 6.4.1) and
// are kept so that the policy chooses as before; with nonholo's own (dense_lu.hpp,
// serial_ops.hpp) a step's fixed cost is about half and a setup about a quarter of these
// (tools/measure_cost_constants.py measures both on the build at hand). For a second-order
// model's halved Newton systems (second_order_lu.hpp), n is the order of the matrix factored, the
// coordinates.
constexpr double kSetupCall = 500.0;
inline double setup_nanoseconds(double n) { return kSetupCall + n * n * n / 3 + 3 * n * n; }

// ---- An Adams step and DOP853 (explicit_rk.hpp) -------------------------------------------------
// CVODE's Adams step outside the model (Nordsieck predictor and update, fixed-point corrector,
// error test, order selection, error weights: a few dozen vector operations):
// benchmarks/reduced_rk.py's runs less their right-hand sides, 2.6-3.5 us a step at 5-12 states,
// 4.6 us at 20, 7.6 us at 36 (loaded 2-core machine).
constexpr double kAdamsStepCall = 2200.0, kAdamsStepPerState = 150.0;
inline double adams_step_ns(int n_states) { return kAdamsStepCall + kAdamsStepPerState * n_states; }
// At rtol 1e-8 on the reduced models DOP853 takes 0-0.5 right-hand sides per Adams step more than
// Adams (1.5-2 against 1.4-1.5) and none of its per-step overhead: it pays when a right-hand side
// costs less than a few Adams steps' overhead. The boundary 2.5 is measured on the chains
// (benchmarks/reduced_rk.py, rtol 1e-8): DOP853 lost by 4-14% on the frame forms of N = 8 at
// order 2 and N = 16 at orders 0-1 (estimated right-hand sides of 3.2-3.5 steps' overhead) and won
// by 40-55% on the coordinate forms of N = 16 at orders 0-1 (2.0-2.2); at the boundary's edge the
// order-3 models of N = 4 (1.6-2.0) are a tie (+-4%); on the sleigh and the disk it won by 1.2-5x
// at every order 0-3.
constexpr double kExplicitRkStepRatio = 2.5;

// ---- sparse="auto" (Python: system/sparsity.py) -------------------------------------------------
// From the platoon (block-diagonal G and A; t in [0, 2], rtol 1e-8, medians of 7 runs, loaded
// 2-core machine), dense time over sparse time: n = 6, 9, 15, 21 (density 0.39, 0.26, 0.15, 0.11):
// nonholonomic 1.08, 1.17, 1.41, 3.2; friction (eps 1e-4, BDF) 0.59, 0.62, 0.86, 1.18; n = 30: 2.1
// and 3.1; n = 60: 10 and 6.6. The knife-edge chain N = 8 (n = 10, density 0.56) runs dense
// 1.3-1.9x faster. So: sparse from 20 coordinates at 12% of the entries or fewer.
constexpr int kSparseMinCoordinates = 20;
constexpr double kSparseMaxDensity = 0.12;

// ---- compile="auto" (Python: expressions/compiled.py) -------------------------------------------
// In nanoseconds per tape instruction, measured on the Whipple bicycle's nonholonomic model
// (benchmarks/compile_auto.py; tapes of 5045 and 273 instructions, a loaded 2-core machine): a
// right-hand side took 10.3 us interpreted and 5.8 us with the tapes compiled (0.85 ns saved per
// instruction); the C compiler, which builds the tapes side by side, took 2.8 s (0.55 ms per
// instruction of the largest tape, as benchmarks/compile_levels.py's 0.5-1 ms). Tapes found in the
// cache cost their C source, its hash, the check of the file and the loading of the objects:
// 6.2 ms for the bicycle, 1.1 ms for the knife-edge chain N = 2 (77 instructions) and the sleigh's
// friction model (34): a millisecond plus 1 us per instruction.
constexpr double kCompileSavedNsPerInstruction = 0.8;
constexpr double kCompileBuildNsPerInstruction = 0.55e6;
constexpr double kCompileLoadNsPerInstruction = 1.0e3;
constexpr double kCompileLoadNs = 1.0e6;

}  // namespace nonholo::cost
