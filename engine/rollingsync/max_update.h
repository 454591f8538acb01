// maxUpdate of a RollingSync step (tests/engine/rollingsync/max_update_test.cc): how many apps of
// the step may be Pending or Progressing at once.
#pragma once

#include <optional>
#include <string>

#include "engine/appset/appset.h"

namespace fleetwave::engine {

// Why a maxUpdate value is invalid, or nullopt when it is valid. Valid: an integer >= 0, or a
// string "<digits>%". Invalid values still have a meaning (MaxUpdateLimit), as in Argo CD.
std::optional<std::string> InvalidMaxUpdate(const IntOrString& value);

// The P of "P%", or nullopt when `text` is not <digits>%. Saturates instead of overflowing.
std::optional<long long> ParsePercent(const std::string& text);

// The value as written, for messages: 3, "abc", "-1".
std::string MaxUpdateAsWritten(const IntOrString& value);

// The budget of a step with `total` status entries: nullopt = unlimited (maxUpdate unset).
// Integer N >= 0 -> N; a negative integer -> 0; "P%" -> floor(P * total / 100), raised to 1
// unless written exactly "0%"; an invalid string -> 1.
std::optional<long long> MaxUpdateLimit(const std::optional<IntOrString>& value, long long total);

}  // namespace fleetwave::engine
