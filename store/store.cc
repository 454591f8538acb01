#include "store/store.h"

namespace fleetwave::store {

const char* CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "Ok";
    case Code::kNotFound:
      return "NotFound";
    case Code::kConflict:
      return "Conflict";
    case Code::kIo:
      return "Io";
    case Code::kLocked:
      return "Locked";
    case Code::kSchema:
      return "Schema";
    case Code::kInvalid:
      return "Invalid";
    case Code::kCorrupt:
      return "Corrupt";
    case Code::kIdentity:
      return "Identity";
  }
  return "Unknown";
}

}  // namespace fleetwave::store
