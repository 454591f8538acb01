// The kinds deleting an app waits on (DeletionApp::kinds): what its last render applied, so the
// deletion actor's cluster watches every kind whose objects it must see gone. Pinned by
// tests/engine/deletion/deletion_kinds_test.cc.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/appset/render.h"

namespace fleetwave::engine {

// Each (apiVersion, kind) of `objects` once, sorted; an object whose apiVersion is not a string
// names none.
std::vector<std::pair<std::string, std::string>> DeletionKindsOf(
    const std::vector<RenderedObject>& objects);

}  // namespace fleetwave::engine
