#include "engine/error.h"

#include <utility>

namespace fleetwave::engine {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kTransient:
      return "transient";
    case ErrorKind::kConflict:
      return "conflict";
    case ErrorKind::kNotFound:
      return "not-found";
    case ErrorKind::kPermanent:
      return "permanent";
    case ErrorKind::kInvalidInput:
      return "invalid-input";
  }
  return "unknown";
}

bool IsRetryable(ErrorKind kind) {
  // A conflict clears when the other writer's change has been read back; a missing object may
  // be created meanwhile (a Namespace or CRD applied by a later wave). Invalid input and
  // permanent failures need a change by a person first.
  return kind == ErrorKind::kTransient || kind == ErrorKind::kConflict ||
         kind == ErrorKind::kNotFound;
}

std::string Error::ToString() const {
  if (object.empty()) return message;
  if (message.empty()) return object;
  return object + ": " + message;
}

namespace {
Error Make(ErrorKind kind, std::string object, std::string message) {
  return Error{kind, std::move(object), std::move(message)};
}
}  // namespace

Error TransientError(std::string object, std::string message) {
  return Make(ErrorKind::kTransient, std::move(object), std::move(message));
}
Error ConflictError(std::string object, std::string message) {
  return Make(ErrorKind::kConflict, std::move(object), std::move(message));
}
Error NotFoundError(std::string object, std::string message) {
  return Make(ErrorKind::kNotFound, std::move(object), std::move(message));
}
Error PermanentError(std::string object, std::string message) {
  return Make(ErrorKind::kPermanent, std::move(object), std::move(message));
}
Error InvalidInputError(std::string object, std::string message) {
  return Make(ErrorKind::kInvalidInput, std::move(object), std::move(message));
}

}  // namespace fleetwave::engine
