// log.h - the library's one way to say something: a level and a message to the installed sink.
#pragma once

#include <string>

#include "ctorch.h"

namespace ct::runtime {

/// Values equal ct_log_level's.
enum class LogLevel : int { Debug = 0, Info = 1, Warning = 2, Error = 3 };

/// Sends message to the handler (ct_set_log_handler), or to stderr without one, when level is at
/// least the threshold (ct_set_log_level). Never writes to stdout.
void log(LogLevel level, const std::string& message);
/// Whether a message at level would be delivered; lets callers skip building it.
bool log_enabled(LogLevel level);

/// Installs the sink messages go to (fn NULL: stderr); the old sink's destroy runs after its last
/// call returns (Note [Swapping the log handler] in log.cpp).
void set_log_handler(ct_log_fn fn, void* user_data, ct_destroy_fn destroy);
/// The level below which messages are dropped (ct_set_log_level).
void set_log_threshold(LogLevel level);
LogLevel log_threshold();
/// Logs message at Warning the first time key is seen (while warnings are delivered) in this process,
/// or every time while warn_always is on (torch.set_warn_always).
void warn_once(const std::string& key, const std::string& message);
void set_warn_always(bool on);
bool warn_always();

}  // namespace ct::runtime
