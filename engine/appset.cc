#include "engine/appset.h"

namespace fleetwave::engine {

DecodedApplicationSet DecodeApplicationSet(const YAML::Node&, const std::string& file) {
  DecodedApplicationSet r;
  r.issues.push_back({file, {}, "", "decoder not implemented yet"});
  return r;
}

}  // namespace fleetwave::engine
