// What an ApplicationSet's git generators read, gathered through the sources layer so the
// engine's generators stay pure: for every (repoURL, revision) the set's git generators name,
// one snapshot (through the reconcile's ResolveOnce, the same snapshot its apps' manifests
// are read from), its directory listing, and the text of the files the `files` generators
// select. Blocks on disk: call it off the actor threads. Pinned by
// tests/sources/generator_inputs_test.cc and the git cases of tests/cli/.
#pragma once

#include <vector>

#include "engine/appset/generate.h"
#include "sources/resolve_once.h"
#include "sources/source.h"

namespace fleetwave::sources {

// The directories and selected files of one snapshot. `file_patterns` are the include
// patterns of the files generators (engine::GitPathMatches); an error of the snapshot's
// repository is returned in GitRepoContent::error, complete for a message.
engine::GitRepoContent ReadGitTree(const Snapshot& snapshot,
                                   const std::vector<engine::GitPathPattern>& file_patterns);

// Everything the set's git generators read, resolved through `resolver`: the repositories the
// spec names (engine::GitRequestsOf), and those a templated repoURL, revision or path names
// once rendered with the parameters it is generated with (engine::GitRequestsFor, round by
// round; `clusters` as the generation will have them, null when unknown).
engine::GeneratorInputs ReadGeneratorInputs(
    const engine::ApplicationSet& set, ResolveOnce& resolver,
    const std::vector<engine::ClusterInfo>* clusters = nullptr,
    const engine::InputLimits& limits = engine::InputLimits{});

}  // namespace fleetwave::sources
