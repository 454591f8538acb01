// Who published a set and what changed since that publisher's previous publish of it, so a
// receiver (the StatusBoard) need not compare every entry of a large set's status.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fleetwave::actors {

struct PublishOrigin {
  std::uint64_t source = 0;  // the publisher (an actor's id); 0 = none
  std::uint64_t seq = 0;     // its publishes of this set, every call counted, hinted or not
  // The only entries of status.applicationStatus (positions, ascending) that may differ from
  // the same source's publish seq - 1, or null: any may. A receiver that did not take that
  // publish (a standby skipped it, another publisher came between) compares every entry.
  const std::vector<std::size_t>* entry_positions = nullptr;
  // Which app -> cluster map came with the publish: the same source's publishes with the same
  // non-zero version carry the same map, so a receiver need not look up an unchanged app's
  // cluster again. 0: unknown.
  std::uint64_t clusters_version = 0;
};

}  // namespace fleetwave::actors
