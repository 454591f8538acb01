#include "sources/generator_inputs.h"

#include <git2.h>

#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "sources/git_handles.h"
#include "sources/git_source.h"

namespace fleetwave::sources {
namespace {

using namespace git;  // the shared libgit2 handles (git_handles.h)

bool Wanted(const std::vector<engine::GitPathPattern>& patterns, const std::string& file) {
  for (const auto& p : patterns) {
    if (engine::GitPathMatches(p.path, file)) return true;
  }
  return false;
}

struct WalkState {
  engine::GitRepoContent* out;
  std::vector<std::pair<std::string, git_oid>> blobs;
  const std::vector<engine::GitPathPattern>* patterns;
};

int Visit(const char* root, const git_tree_entry* entry, void* payload) {
  auto* state = static_cast<WalkState*>(payload);
  const std::string path = std::string(root) + git_tree_entry_name(entry);
  const git_object_t type = git_tree_entry_type(entry);
  if (type == GIT_OBJECT_TREE) {
    state->out->directories.push_back(path);
  } else if (type == GIT_OBJECT_BLOB && Wanted(*state->patterns, path)) {
    state->blobs.emplace_back(path, *git_tree_entry_id(entry));
  }
  return 0;
}

engine::GitRepoContent ReadGit(const Snapshot& snapshot,
                               const std::vector<engine::GitPathPattern>& patterns) {
  engine::GitRepoContent out;
  git::InitLibgit2Once();
  const std::string where = snapshot.repo_url + "@" + snapshot.sha;
  const std::optional<std::string> local =
      snapshot.git_dir.empty() ? LocalPathOf(snapshot.repo_url) : snapshot.git_dir;
  git_repository* repo_raw = nullptr;
  if (!local || git_repository_open_ext(&repo_raw, local->c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH,
                                        nullptr) != 0) {
    out.error =
        engine::TransientError(snapshot.repo_url, "cannot open repository: " + LastGitError());
    return out;
  }
  RepoPtr repo(repo_raw);
  git_oid oid;
  git_commit* commit_raw = nullptr;
  if (git_oid_fromstr(&oid, snapshot.sha.c_str()) != 0 ||
      git_commit_lookup(&commit_raw, repo.get(), &oid) != 0) {
    out.error = engine::TransientError(where, "cannot read commit: " + LastGitError());
    return out;
  }
  CommitPtr commit(commit_raw);
  git_tree* tree_raw = nullptr;
  if (git_commit_tree(&tree_raw, commit.get()) != 0) {
    out.error = engine::TransientError(where, "cannot read tree: " + LastGitError());
    return out;
  }
  TreePtr tree(tree_raw);
  WalkState state{&out, {}, &patterns};
  if (git_tree_walk(tree.get(), GIT_TREEWALK_PRE, Visit, &state) != 0) {
    out.error = engine::TransientError(where, "cannot list tree: " + LastGitError());
    return out;
  }
  for (const auto& [path, id] : state.blobs) {
    git_blob* blob_raw = nullptr;
    if (git_blob_lookup(&blob_raw, repo.get(), &id) != 0) {
      out.error = engine::TransientError(where + ":" + path, "cannot read file: " + LastGitError());
      return out;
    }
    BlobPtr blob(blob_raw);
    out.files[path] = std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                                  static_cast<size_t>(git_blob_rawsize(blob.get())));
  }
  return out;
}

}  // namespace

engine::GitRepoContent ReadGitTree(const Snapshot& snapshot,
                                   const std::vector<engine::GitPathPattern>& file_patterns) {
  if (snapshot.is_git && !snapshot.directory) return ReadGit(snapshot, file_patterns);
  engine::GitRepoContent out;
  if (!snapshot.directory) {
    out.error = engine::TransientError(snapshot.repo_url, "directory content was not captured");
    return out;
  }
  // A plain directory's snapshot (or another whose content was captured when it was resolved)
  // holds its manifests (*.yaml, *.yml, *.json) only: the files a
  // files generator reads are among them.
  out.directories.assign(snapshot.directory->directories.begin(),
                         snapshot.directory->directories.end());
  for (const auto& [path, text] : snapshot.directory->files) {
    if (Wanted(file_patterns, path)) out.files[path] = text;
  }
  return out;
}

engine::GeneratorInputs ReadGeneratorInputs(const engine::ApplicationSet& set,
                                            ResolveOnce& resolver,
                                            const std::vector<engine::ClusterInfo>* clusters,
                                            const engine::InputLimits& limits) {
  engine::GeneratorInputs inputs;
  // The file patterns each snapshot was read with: a later round may ask for more.
  std::map<std::pair<std::string, std::string>, std::set<std::string>> read_with;
  auto read = [&](const engine::GitRequest& req) {
    const std::pair<std::string, std::string> key{req.repo_url, req.revision};
    std::set<std::string> patterns;
    for (const auto& p : req.file_patterns) patterns.insert(p.path);
    auto done = read_with.find(key);
    if (done != read_with.end() && done->second == patterns) return false;
    read_with[key] = std::move(patterns);
    engine::GitRepoContent& content = inputs.git[key];
    Resolution r = resolver.Resolve(req.repo_url, req.revision);
    if (!r.ok()) {
      content.error = r.error ? *r.error : engine::TransientError(req.repo_url, "cannot resolve");
    } else {
      content = ReadGitTree(*r.snapshot, req.file_patterns);
    }
    return true;
  };
  if (!engine::GitRequestsNeedParameters(set)) {
    for (const engine::GitRequest& req : engine::GitRequestsOf(set)) read(req);
    return inputs;
  }
  // A templated repoURL, revision or path is known once the parameters it is rendered with
  // are: each round reads what generating with the inputs so far asks for. The rounds are
  // bounded by the nesting of matrices; the cap only guards against a set that asks for
  // something new at every round.
  constexpr int kMaxRounds = 16;
  for (int round = 0; round < kMaxRounds; ++round) {
    bool asked = false;
    for (const engine::GitRequest& req : engine::GitRequestsFor(set, clusters, inputs, limits)) {
      asked = read(req) || asked;
    }
    if (!asked) break;
  }
  return inputs;
}

}  // namespace fleetwave::sources
