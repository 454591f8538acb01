#include "sources/kustomize.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "sources/generator_inputs.h"
#include "sources/git_source.h"

extern char** environ;

namespace fleetwave::sources {
namespace {

namespace fs = std::filesystem;

const char* kKustomizationNames[] = {"kustomization.yaml", "kustomization.yml", "Kustomization"};

std::string Join(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + "/" + name;
}

// A temporary directory removed when it goes out of scope.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "fleetwave-kustomize-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

std::string HelmUnsupportedMessage() {
  return "Helm sources are not supported by fleetwave yet (use a directory of "
         "manifests or a kustomization)";
}

PathKind KindOf(const Snapshot& snapshot, const std::string& raw_path) {
  const std::string path = NormalizePath(raw_path).value_or(raw_path);
  std::vector<engine::GitPathPattern> probes;
  for (const char* n : kKustomizationNames) probes.push_back({Join(path, n), false});
  probes.push_back({Join(path, "Chart.yaml"), false});
  engine::GitRepoContent found;
  if (snapshot.is_git) {
    found = ReadGitTree(snapshot, probes);
  } else if (auto local = LocalPathOf(snapshot.repo_url)) {
    // A plain directory's snapshot keeps manifests only; look at the directory itself.
    for (const auto& p : probes) {
      std::error_code ec;
      if (fs::is_regular_file(fs::path(*local) / p.path, ec)) found.files[p.path] = "";
    }
  }
  if (found.files.count(Join(path, "Chart.yaml"))) return PathKind::kHelmChart;
  for (const char* n : kKustomizationNames) {
    if (found.files.count(Join(path, n))) return PathKind::kKustomization;
  }
  return PathKind::kManifests;
}

CommandResult RunCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  CommandResult r;
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    r.err = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    r.err = std::string("pipe: ") + std::strerror(errno);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    r.err = argv[0] + ": " + std::strerror(rc);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return r;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      break;
    }
    const int n = ::poll(fds, 2, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[8192];
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, static_cast<size_t>(got));
      } else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  if (r.timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!r.timed_out && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

ReadResult ReadPath(Source& source, const Snapshot& snapshot, const std::string& raw_path,
                    const KustomizeOptions& options) {
  const PathKind kind = KindOf(snapshot, raw_path);
  if (kind == PathKind::kManifests) return source.Read(snapshot, raw_path);
  ReadResult out;
  const std::string path = NormalizePath(raw_path).value_or(raw_path);
  const std::string where =
      snapshot.repo_url + "@" + snapshot.sha + ":" + (path.empty() ? "." : path);
  if (kind == PathKind::kHelmChart) {
    out.errors.push_back(engine::PermanentError(where, HelmUnsupportedMessage()));
    return out;
  }
  // kubectl kustomize needs files on disk: a git snapshot is written out whole (a base may
  // live anywhere in the repository); a plain directory is used where it is.
  ScratchDir scratch;
  std::string root;
  if (snapshot.is_git) {
    engine::GitRepoContent tree = ReadGitTree(snapshot, {{"**", false}});
    if (tree.error || scratch.path().empty()) {
      out.errors.push_back(
          tree.error ? *tree.error
                     : engine::TransientError(where, "cannot create a scratch directory"));
      return out;
    }
    for (const auto& [file, text] : tree.files) {
      const fs::path target = fs::path(scratch.path()) / file;
      std::error_code ec;
      fs::create_directories(target.parent_path(), ec);
      std::ofstream(target, std::ios::binary) << text;
    }
    root = scratch.path();
  } else {
    root = LocalPathOf(snapshot.repo_url).value_or("");
  }
  const std::string dir = path.empty() ? root : root + "/" + path;
  CommandResult run = RunCommand({options.kubectl, "kustomize", dir}, options.timeout);
  if (run.timed_out) {
    out.errors.push_back(engine::Error{engine::ErrorKind::kInvalidInput, where,
                                       "kubectl kustomize did not finish within " +
                                           std::to_string(options.timeout.count()) + "ms"});
    return out;
  }
  if (run.exit_code != 0) {
    std::string msg = run.err;
    // The scratch directory is an implementation detail; show repository paths.
    for (size_t at; !root.empty() && (at = msg.find(root + "/")) != std::string::npos;)
      msg.erase(at, root.size() + 1);
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    out.errors.push_back(engine::Error{
        engine::ErrorKind::kInvalidInput, where,
        "kubectl kustomize failed" +
            (run.exit_code < 0 ? "" : " (exit " + std::to_string(run.exit_code) + ")") + ": " +
            msg});
    return out;
  }
  ParseManifestFile(snapshot, Join(path, "kustomization.yaml"), run.out, out);
  return out;
}

}  // namespace fleetwave::sources
