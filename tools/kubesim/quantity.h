// Resource quantities as the API server stores them (k8s.io/apimachinery resource.Quantity's
// canonical form): "0.5" and 0.5 are stored as "500m", "1000m" as "1", "1.5Gi" as "1536Mi",
// "2000" as "2k"; the suffix family of the input (decimal SI, binary SI, decimal exponent) is
// kept. Pure functions.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace fleetwave::kubesim {

using Json = nlohmann::json;

// The canonical form of a quantity written as a string or a JSON number; nullopt when it is
// not a quantity (the write is then left for validation to judge).
std::optional<std::string> CanonicalQuantity(const Json& value);

// Canonicalises, in place, every value of the quantity maps of a pod spec's containers and
// init containers (resources.limits, resources.requests) and of emptyDir sizeLimits.
void CanonicalizePodQuantities(Json& pod_spec);

}  // namespace fleetwave::kubesim
