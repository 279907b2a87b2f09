// Compiled vector operations for SUNDIALS' serial N_Vector.
//
// CVODE works on its vectors through the function pointers of each vector's ops table (a clone
// copies the table). For the few states of a small model each step makes some 60 of these calls,
// and in Debian's SUNDIALS 6.4.1 (built without optimization) their loops took about a quarter
// of the friction sleigh's run (perf). use_compiled_ops points the hot operations of a serial
// vector, and of every vector CVODE clones from it, at loops compiled with the core: the same
// special cases in the same order as nvector_serial.c (z = a x + y for b == 1, c (x + y) for
// a == b, ...), so every result is the serial vector's bit for bit and runs take the same steps.
// Fused operations (z = sum c_i X_i, Z_i = a_i x + Y_i as one call instead of one per vector)
// were measured on the sleigh and did not pay (SUNDIALS' own, N_VEnableFusedOps_Serial: 1.47 ->
// 1.45 ms; compiled ones: 0.94 -> 0.93-0.95 ms, noise): CVODE's fallbacks call the compiled ops.
#pragma once

#include <sundials/sundials_nvector.h>

namespace nonholo::sun {

// v must be a serial vector (N_VNew_Serial).
void use_compiled_ops(N_Vector v);

}  // namespace nonholo::sun
