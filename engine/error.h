// One error value for every layer (issue 31: nine shapes were in use, from bare strings to
// sources' own kinds, and some callers retried by reading the text). A failure a user or a
// cluster can cause is an `Error`: what kind of failure it is (callers decide on the kind, never
// on the message), the object it concerns, and what is wrong, complete enough for a condition, a
// log line or an API answer. A failure only a bug can cause is not an Error: FLEETWAVE_CHECK
// (engine/check.h) stops the process with its message.
#pragma once

#include <string>

namespace fleetwave::engine {

enum class ErrorKind {
  kTransient,     // try again later: a timeout, an unreachable cluster or repository, a 5xx, 429
  kConflict,      // the object's state forbids it now: a stale resourceVersion, an SSA conflict
  kNotFound,      // the object is not there: a 404, an unknown revision, a missing path
  kPermanent,     // retrying will not help: 401/403/422, a TLS failure, something unsupported
  kInvalidInput,  // the user's file or object is wrong: a manifest that does not parse, a bad
                  // template, an unreadable field
};

// "transient", "conflict", "not-found", "permanent", "invalid-input".
const char* ErrorKindName(ErrorKind kind);

// Whether an attempt that failed with this kind may succeed when tried again unchanged.
bool IsRetryable(ErrorKind kind);

struct Error {
  ErrorKind kind = ErrorKind::kPermanent;
  // The object the error concerns, as a user names it: "Deployment/web", "cluster dev",
  // "<repoURL>@<sha>:<path>:<line>:<col>". May be empty when the context already names it.
  std::string object;
  std::string message;  // what is wrong, without the object

  // "<object>: <message>", or the message alone when no object is named.
  std::string ToString() const;
  bool operator==(const Error&) const = default;
};

Error TransientError(std::string object, std::string message);
Error ConflictError(std::string object, std::string message);
Error NotFoundError(std::string object, std::string message);
Error PermanentError(std::string object, std::string message);
Error InvalidInputError(std::string object, std::string message);

}  // namespace fleetwave::engine
