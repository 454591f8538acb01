// What kind of source an Application's `path` is, and reading it accordingly:
//  - a plain manifests directory: read by the Source itself;
//  - a kustomization (kustomization.yaml, kustomization.yml or Kustomization in the path):
//    rendered with `kubectl kustomize`, the kubectl users already have, on a copy of the
//    snapshot's tree (bases elsewhere in the repository resolve as they do in a checkout);
//  - a Helm chart (Chart.yaml in the path): refused until supported.
// `kubectl` runs as a child process with a deadline; it is killed when the deadline passes.
// Everything here blocks on disk and on the child: call it from the daemon's blocking pool,
// never from an actor thread. Pinned by tests/sources/kustomize_test.cc.
#pragma once

#include <chrono>
#include <string>

#include "sources/source.h"

namespace fleetwave::sources {

struct KustomizeOptions {
  std::string kubectl = "kubectl";  // a path, or a name looked up on PATH
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

enum class PathKind { kManifests, kKustomization, kHelmChart };

// The kind of `path` at `snapshot` (decided by the files the directory holds).
PathKind KindOf(const Snapshot& snapshot, const std::string& path);

// Reads `path` of `snapshot` as its kind says. Kustomize failures (kubectl missing, a build
// error, the deadline) are kInvalidInput errors naming the path; a Helm chart is kPermanent.
ReadResult ReadPath(Source& source, const Snapshot& snapshot, const std::string& path,
                    const KustomizeOptions& options);

// The message for an Application whose source uses `helm`: refused until supported.
std::string HelmUnsupportedMessage();

struct CommandResult {
  int exit_code = -1;  // -1 when it did not run or was killed
  bool timed_out = false;
  std::string out;
  std::string err;  // stderr, or why it could not run
};

// Runs argv[0] (looked up on PATH) with its arguments, without a shell, collecting stdout and
// stderr until it exits or `timeout` passes (then it is killed).
CommandResult RunCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

}  // namespace fleetwave::sources
