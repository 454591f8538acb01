// Plain (non-git) directories as sources: the whole directory's manifests are captured at
// Resolve, and their content hash is the snapshot's revision, so a snapshot stays identical
// however the directory changes afterwards. Internal to GitSource; stateless and thread-safe.
#pragma once

#include <string>

#include "sources/source.h"

namespace fleetwave::sources {

// Captures `dir` (a local directory that is not a git repository). Only "" and "HEAD" are
// valid revisions of a plain directory.
Resolution ResolveDirectory(const std::string& repo_url, const std::string& dir,
                            const std::string& revision);

// Reads `path` (normalised) of a snapshot made by ResolveDirectory.
ReadResult ReadDirectory(const Snapshot& snapshot, const std::string& path);

// Content hash of a captured directory: a git blob id per manifest, combined with the paths
// (and the subdirectories' names) into one more git blob id (40 hex digits). Stable across
// runs and machines; changes when a manifest or a subdirectory is added, removed, renamed or
// edited, and only then (other files do not count: they are never read).
std::string ContentHash(const DirectoryContent& content);

}  // namespace fleetwave::sources
