// Where an Application's manifests come from: a git repository at a resolved commit, or a plain
// directory identified by a hash of its content. `Source` is the seam the daemon calls; its real
// implementation is `GitSource` (git_source.h), tests use `FakeSource` (fake_source.h).
//
// Every call may block on disk (and, once remote repositories are fetched, on the network), so
// the daemon calls a `Source` only from its dedicated blocking pool, never from an actor
// scheduler thread. Results are values: a failure is an `engine::Error` whose ToString() is
// complete and ready for a condition or a log line.
//
// Snapshots (product rule "one snapshot per (repoURL, targetRevision) per appset reconcile"):
// `Resolve` turns a revision into a `Snapshot`; every later `Read` of that snapshot sees the
// same content, however the repository moves meanwhile. `ResolveOnce` (resolve_once.h)
// memoises `Resolve` for one reconcile, so every app of a set sees the same commit.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/issue.h"
#include "engine/yaml_json.h"

namespace fleetwave::sources {

using Json = engine::Json;

// Source failures are engine::Error values (engine/error.h). Their kinds: a repository or file
// that cannot be read is kTransient (it is tried again at the next poll), an unknown revision or
// a missing path kNotFound, a manifest that does not parse kInvalidInput, a repository URL or
// source type fleetwave does not read kPermanent. The object names where, as the user wrote it:
//   <repo>                                 (repository, revision)
//   <repo>@<sha>:<path>                    (missing path)
//   <repo>@<sha>:<path>:<line>:<col>       (bad manifest; 1-based line:col)
// so Error::ToString() reads "<object>: <message>".

// A plain directory's manifests, captured when it was resolved (a directory has no history
// to read "at a revision" from later). Paths are '/'-separated, relative to the directory.
struct DirectoryContent {
  std::map<std::string, std::string> files;  // manifest files only (see IsManifestName)
  std::set<std::string> directories;         // every subdirectory, so empty ones still exist
};

// One resolved revision of one repository. Cheap to copy; immutable.
struct Snapshot {
  std::string repo_url;  // as given (for messages and cache keys)
  std::string revision;  // targetRevision as given ("" means HEAD)
  std::string sha;       // full commit SHA, or the content hash of a plain directory
  bool is_git = true;
  // Git only: the repository on disk that holds `sha`: the local path, or the mirror of a
  // remote repository (sources/git_mirror.h). Empty: the local path repo_url names.
  std::string git_dir;
  // Plain directories: the manifest files as they were when resolved (FakeSource captures its
  // commits' files here too). Set, the git generators read it instead of `git_dir`.
  std::shared_ptr<const DirectoryContent> directory;
};

struct Resolution {
  std::optional<Snapshot> snapshot;    // set on success
  std::optional<engine::Error> error;  // set on failure
  bool ok() const { return snapshot.has_value(); }
};

// One document of one manifest file, as JSON, with where it starts.
struct Manifest {
  std::string file;       // path relative to the repository root, e.g. "guestbook/a.yaml"
  int document = 0;       // 0-based index of the non-empty document within its file
  engine::SourcePos pos;  // 1-based start of the document
  Json object;
};

struct ReadResult {
  std::vector<Manifest> manifests;    // file-name order, then document order
  std::vector<engine::Error> errors;  // every problem found; manifests are partial when set
  bool ok() const { return errors.empty(); }
};

class Source {
 public:
  virtual ~Source() = default;

  // Brings what this source knows about `repo_url` up to date with its origin: the periodic
  // (`git.pollInterval`) and on-demand (refresh) fetch. For local repositories and plain
  // directories there is nothing to fetch (the next Resolve re-reads refs and files), so this
  // only checks that the repository is readable. Returns the error, if any.
  virtual std::optional<engine::Error> Fetch(const std::string& repo_url) = 0;

  // Resolves `revision` (branch, tag, full or short SHA, "HEAD"; "" means HEAD) of
  // `repo_url` to a snapshot. A remote repository is synced first (git_mirror.h), so its
  // snapshot is the remote's commit as of this call.
  virtual Resolution Resolve(const std::string& repo_url, const std::string& revision) = 0;

  // Reads the manifests (*.yaml, *.yml, *.json; not recursive) of directory `path` ("" or "."
  // for the root) at `snapshot`, without checking anything out.
  virtual ReadResult Read(const Snapshot& snapshot, const std::string& path) = 0;
};

// An error located at "<repo>@<sha>:<file>:<line>:<col>" (line:col dropped when 0).
engine::Error ErrorAt(engine::ErrorKind kind, const Snapshot& snapshot, const std::string& file,
                      engine::SourcePos pos, std::string message);

// Normalises an app's `path`: strips "./" prefixes and trailing '/', "." becomes "".
// Returns nullopt for paths that leave the repository ("..", absolute).
std::optional<std::string> NormalizePath(const std::string& path);

// Parses one manifest file's text into documents; problems become kBadManifest errors located
// at `file`. Shared by every Source so all of them report the same text.
void ParseManifestFile(const Snapshot& snapshot, const std::string& file, const std::string& text,
                       ReadResult& out);

// True for the file names a source directory's manifests have: *.yaml, *.yml, *.json.
bool IsManifestName(const std::string& name);

}  // namespace fleetwave::sources
