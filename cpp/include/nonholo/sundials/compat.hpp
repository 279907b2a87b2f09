// The only file that knows the differences between SUNDIALS 6.x and 7.x.
#pragma once

#include <string>
#include <vector>

#include <cvodes/cvodes.h>
#include <sundials/sundials_config.h>
#include <sundials/sundials_context.h>

namespace nonholo::sun {

using real = sunrealtype;

// Where SUNDIALS' own error and warning messages go (never stderr: notebook users would not
// see them; they end up in SimulationResult.messages).
struct MessageSink {
  std::vector<std::string> messages;
};

inline int create_context(SUNContext* ctx) {
#if SUNDIALS_VERSION_MAJOR >= 7
  return SUNContext_Create(SUN_COMM_NULL, ctx);
#else
  return SUNContext_Create(nullptr, ctx);
#endif
}

#if SUNDIALS_VERSION_MAJOR >= 7
inline void sink_handler(int line, const char* func, const char* file, const char* msg, SUNErrCode code,
                         void* data, SUNContext) {
  (void)line;
  (void)file;
  auto* sink = static_cast<MessageSink*>(data);
  sink->messages.push_back(std::string(func ? func : "") + ": " + (msg ? msg : "") + " (code " +
                           std::to_string(code) + ")");
}
#else
inline void sink_handler(int code, const char* module, const char* function, char* msg, void* data) {
  auto* sink = static_cast<MessageSink*>(data);
  sink->messages.push_back(std::string(module ? module : "") + "/" + (function ? function : "") + ": " +
                           (msg ? msg : "") + " (flag " + std::to_string(code) + ")");
}
#endif

// Routes messages of this context / CVODE instance into `sink`.
inline void capture_messages(SUNContext ctx, void* cvode_mem, MessageSink* sink) {
#if SUNDIALS_VERSION_MAJOR >= 7
  (void)cvode_mem;
  SUNContext_ClearErrHandlers(ctx);
  SUNContext_PushErrHandler(ctx, sink_handler, sink);
#else
  (void)ctx;
  CVodeSetErrHandlerFn(cvode_mem, sink_handler, sink);
#endif
}

}  // namespace nonholo::sun
