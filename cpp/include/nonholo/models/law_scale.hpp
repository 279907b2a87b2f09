// Where a friction model's scale eps sits in its parameter vector: the model's first own
// parameter, after the system's n_params (Python's Model.param_vector appends it, so that
// params={"eps": ...} overrides the model's value). The viscous law's 1 / eps gain, a law's
// regularization and the reduced models' expansion parameter are all read through law_scale;
// no other unit knows the position.
#pragma once

namespace nonholo {

// The law's scale in p, a model's parameters (the system's n_system_params, then the model's own).
template <class P>
const P& law_scale(const P* p, int n_system_params) {
  return p[n_system_params];
}

}  // namespace nonholo
