#include "sources/directory_source.h"

#include <git2.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fleetwave::sources {
namespace {

namespace fs = std::filesystem;

std::string BlobId(const std::string& data) {
  git_oid oid;
  git_odb_hash(&oid, data.data(), data.size(), GIT_OBJECT_BLOB);
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &oid);
  return hex;
}

engine::Error Unreadable(const std::string& repo_url, const std::string& what) {
  return engine::Error{engine::ErrorKind::kTransient, repo_url, what};
}

}  // namespace

std::string ContentHash(const DirectoryContent& content) {
  std::string listing;
  for (const auto& dir : content.directories) listing += "dir " + dir + '\n';
  for (const auto& [path, data] : content.files) {
    listing += "file " + path + '\0' + BlobId(data) + '\n';
  }
  return BlobId(listing);
}

Resolution ResolveDirectory(const std::string& repo_url, const std::string& dir,
                            const std::string& revision) {
  Resolution out;
  if (!revision.empty() && revision != "HEAD") {
    out.error = engine::Error{engine::ErrorKind::kNotFound, repo_url,
                              "unknown revision \"" + revision +
                                  "\" (a plain directory has only its current content; use HEAD)"};
    return out;
  }
  auto content = std::make_shared<DirectoryContent>();
  std::error_code ec;
  // Symlinks are neither followed nor read: a source must not reach outside its directory.
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    std::error_code sec;
    if (entry.is_symlink(sec)) continue;
    const std::string rel = fs::relative(entry.path(), dir, sec).generic_string();
    if (sec) {
      ec = sec;
      break;
    }
    if (entry.is_directory(sec)) {
      content->directories.insert(rel);
    } else if (entry.is_regular_file(sec) && IsManifestName(entry.path().filename().string())) {
      std::ifstream in(entry.path(), std::ios::binary);
      std::ostringstream data;
      data << in.rdbuf();
      if (!in) {
        out.error = Unreadable(repo_url, "cannot read " + rel);
        return out;
      }
      content->files[rel] = data.str();
    }
  }
  if (ec) {
    out.error = Unreadable(repo_url, "cannot read directory: " + ec.message());
    return out;
  }
  Snapshot snapshot;
  snapshot.repo_url = repo_url;
  snapshot.revision = revision;
  snapshot.sha = ContentHash(*content);
  snapshot.is_git = false;
  snapshot.directory = std::move(content);
  out.snapshot = std::move(snapshot);
  return out;
}

ReadResult ReadDirectory(const Snapshot& snapshot, const std::string& path) {
  ReadResult out;
  const DirectoryContent& content = *snapshot.directory;
  if (!path.empty() && content.directories.count(path) == 0) {
    const bool is_file = content.files.count(path) > 0;
    out.errors.push_back(ErrorAt(engine::ErrorKind::kNotFound, snapshot, path, {},
                                 is_file ? "not a directory" : "path not found"));
    return out;
  }
  const std::string prefix = path.empty() ? "" : path + "/";
  // std::map iterates in byte order of the path, which for one directory's direct children is
  // file-name order.
  for (auto it = content.files.lower_bound(prefix); it != content.files.end(); ++it) {
    const std::string& file = it->first;
    if (file.compare(0, prefix.size(), prefix) != 0) break;
    if (file.find('/', prefix.size()) != std::string::npos) continue;  // not recursive
    ParseManifestFile(snapshot, file, it->second, out);
  }
  return out;
}

}  // namespace fleetwave::sources
