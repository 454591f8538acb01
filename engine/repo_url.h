// Which repository a repoURL names, as Argo CD compares them: the scheme and the host are
// case-insensitive, a default port is the same as none, and the path is compared without a
// trailing ".git" or '/'. The scp-like form "git@host:org/repo.git" is the ssh URL
// "ssh://git@host/org/repo". A password written into a URL is never part of the key (nor of
// anything printed: see RedactUrl). Pure functions; thread-safe.
//
// The key names a repository's mirror (sources/), picks its `repositories:` entry
// (FindRepository) and matches a push webhook's URLs to the sets that use them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/issue.h"

namespace fleetwave::engine {

// A remote URL split up. Only remote forms parse: http(s)://, ssh://, git:// and scp-like.
struct RepoUrl {
  std::string scheme;         // lower case: "https", "http", "ssh", "git"
  std::string user;           // "git" in git@host:..., empty when none
  bool has_password = false;  // "https://user:secret@host/..." (the secret itself is dropped)
  std::string host;           // lower case
  std::string port;           // empty for the scheme's default
  std::string path;           // leading '/', no trailing '/' nor ".git"
};

// Parses a remote URL; nullopt for a local path, a file:// URL or text that is no URL.
std::optional<RepoUrl> ParseRepoUrl(const std::string& url);

// The comparison key: "scheme://[user@]host[:port]/path". The user is kept for ssh (it is
// the account logged in as) and dropped for http(s) (there it is only a credential).
// A local path or file:// URL is returned as given.
std::string NormalizeRepoUrl(const std::string& url);

// `url` with any password replaced by "***", for messages. Text that is no URL is returned
// as given.
std::string RedactUrl(const std::string& url);

// `repositories:` in fleetwave.yaml, one entry: credentials for every repository whose URL
// starts with `url` (Argo CD's repository and repo-creds secrets).
struct RepositoryConfig {
  std::string url;            // a URL or a URL prefix, as written
  std::string username;       // or username_file
  std::string username_file;  // read at every use, so a rotated file needs no restart
  std::string password_file;  // a password or a personal access token
  std::string ca_file;        // https: trust these CAs instead of the system's
  std::string ssh_private_key_file;
  std::string known_hosts_file;  // ssh: host keys are verified against this file
  bool insecure_ignore_host_key = false;
  SourcePos pos;
};

// The entry that applies to `repo_url`: the longest `url` that is a prefix of it, compared
// normalised and on a path-segment boundary ("https://h/org" matches "https://h/org/app" but
// not "https://h/organisation"). nullptr when none does.
const RepositoryConfig* FindRepository(const std::vector<RepositoryConfig>& repositories,
                                       const std::string& repo_url);

}  // namespace fleetwave::engine
