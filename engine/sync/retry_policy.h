// An Application's sync retry policy (`syncPolicy.retry`, copied into each operation's
// `retry`) and Argo CD's retry rule: a Failed or Errored attempt is retried while the retry
// count is below `limit` (a negative limit retries forever; 0 or absent never), each retry
// waiting duration × factor^retryCount, capped at maxDuration (when > 0). Defaults as Argo:
// duration 5s, factor 2, maxDuration 3m. Durations are Go durations ("5s", "1m30s", "500ms")
// or a plain number of seconds ("10").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/error.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

struct RetryPolicy {
  int64_t limit = 0;
  Duration duration = std::chrono::seconds(5);
  int64_t factor = 2;
  Duration max_duration = std::chrono::minutes(3);
};

struct DecodedRetryPolicy {
  RetryPolicy policy;
  // kInvalidInput: an unreadable backoff field; the attempt is not retried, as in Argo.
  std::optional<Error> error;
};

// Decodes {limit, backoff: {duration, factor, maxDuration}}; absent fields take the defaults.
DecodedRetryPolicy DecodeRetryPolicy(const Json& retry);

// A Go duration ("1h2m3.5s", "300ms", "-1s" is refused) or a whole number of seconds.
std::optional<Duration> ParseGoDuration(std::string_view text);

// How long to wait before retry number `retry_count + 1`: duration × factor^retry_count,
// capped at max_duration when that is positive.
Duration RetryBackoff(const RetryPolicy& policy, int64_t retry_count);

// Whether an attempt that ended Failed or Errored with `retry_count` retries behind it may be
// retried.
bool MayRetry(const RetryPolicy& policy, int64_t retry_count);

}  // namespace fleetwave::engine
