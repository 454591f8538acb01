// Owning handles for libgit2 objects and libgit2's last error as text, shared by the files of
// sources/ that call libgit2 (git_source.cc, generator_inputs.cc, git_mirror.cc). Internal to
// sources/.
#pragma once

#include <git2.h>

#include <memory>
#include <mutex>
#include <string>

namespace fleetwave::sources::git {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using RepoPtr = std::unique_ptr<git_repository, Deleter<git_repository, git_repository_free>>;
using ObjectPtr = std::unique_ptr<git_object, Deleter<git_object, git_object_free>>;
using CommitPtr = std::unique_ptr<git_commit, Deleter<git_commit, git_commit_free>>;
using TreePtr = std::unique_ptr<git_tree, Deleter<git_tree, git_tree_free>>;
using EntryPtr = std::unique_ptr<git_tree_entry, Deleter<git_tree_entry, git_tree_entry_free>>;
using BlobPtr = std::unique_ptr<git_blob, Deleter<git_blob, git_blob_free>>;
using RemotePtr = std::unique_ptr<git_remote, Deleter<git_remote, git_remote_free>>;
using ReferencePtr = std::unique_ptr<git_reference, Deleter<git_reference, git_reference_free>>;

// libgit2 initialised once for the process, before any of its calls, by whichever entry point
// of sources/ runs first (never shut down: other threads may still use it at exit).
inline void InitLibgit2Once() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

inline std::string LastGitError() {
  const git_error* e = git_error_last();
  return e != nullptr && e->message != nullptr ? e->message : "unknown libgit2 error";
}

}  // namespace fleetwave::sources::git
