// An in-memory `Source` for tests of the layers above (ResolveOnce, the daemon's reconcile):
// repositories are maps of revision -> SHA and SHA -> files; every call is recorded so tests
// can assert how often the real thing would have been asked. Errors use the same formats as
// GitSource (ErrorAt, ParseManifestFile). Thread-safe: one mutex around everything.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "sources/source.h"

namespace fleetwave::sources {

class FakeSource final : public Source {
 public:
  // `revision` of `repo_url` resolves to `sha` (Resolve treats "" as "HEAD", like GitSource).
  void SetRevision(const std::string& repo_url, const std::string& revision,
                   const std::string& sha);
  // The files (path relative to the root -> text) of commit `sha` of `repo_url`.
  void SetFiles(const std::string& repo_url, const std::string& sha,
                std::map<std::string, std::string> files);
  // Makes Fetch(repo_url) and Resolve(repo_url, ...) fail with `error` (nullopt clears it).
  void SetFetchError(const std::string& repo_url, std::optional<engine::Error> error);

  std::optional<engine::Error> Fetch(const std::string& repo_url) override;
  Resolution Resolve(const std::string& repo_url, const std::string& revision) override;
  ReadResult Read(const Snapshot& snapshot, const std::string& path) override;

  // Recorded calls, in order: "fetch <repo>", "resolve <repo> <revision>",
  // "read <repo>@<sha>:<path>".
  std::vector<std::string> calls() const;

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::string> revisions_;
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::string>> files_;
  std::map<std::string, engine::Error> fetch_errors_;
  std::vector<std::string> calls_;
};

}  // namespace fleetwave::sources
