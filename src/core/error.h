// error.h - ct::Error, the one exception type, and the checks that raise it.
//
// Internals throw; src/capi catches at the ABI boundary and turns the exception into a status
// plus the thread-local message (see Note [Errors cross the ABI as statuses] in capi/handle.h).
#pragma once

#include <exception>
#include <sstream>
#include <string>
#include <utility>

#include "ctorch.h"

namespace ct {

/// A failure with a ct_status and a message shaped "<op>: <what> (<details>). <what to do>."
class Error : public std::exception {
 public:
  Error(ct_status status, std::string msg) : status_(status), msg_(std::move(msg)) {}
  ct_status status() const noexcept { return status_; }
  const char* what() const noexcept override { return msg_.c_str(); }
  const std::string& message() const noexcept { return msg_; }

 private:
  ct_status status_;
  std::string msg_;
};

/// Concatenates its arguments with operator<< (shapes, dtypes and devices print themselves).
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

[[noreturn]] inline void fail(ct_status status, std::string msg) { throw Error(status, std::move(msg)); }

/// A failure raised below the operators, where no operator name is known (a SymInt's range check
/// reading an int argument). Its message lacks the "<op>: " prefix; the dispatcher adds the name of
/// the operator it was running and rethrows it as a plain Error.
class UnattributedError : public Error {
 public:
  using Error::Error;
};

}  // namespace ct

// Raise ct::Error(status, str(...)) unless cond holds. The message is built only on failure.
#define CT_CHECK(cond, status, ...)                  \
  do {                                               \
    if (__builtin_expect(!(cond), 0)) ::ct::fail((status), ::ct::str(__VA_ARGS__)); \
  } while (0)
