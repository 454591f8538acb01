// The libgit2 callbacks that authenticate one connection to a remote repository: credentials
// from a `repositories:` entry (engine::RepositoryConfig) and the ssh host key check against
// its knownHostsFile. Internal to sources/ (git_mirror.cc).
//
// Secret files are read at every connection, never cached, so a rotated token or key needs no
// restart. Nothing here puts a secret into a message: a failure says which entry and which
// file, never what was in it.
//
// Thread-safety: one RemoteAuth per connection, used by the thread that connects.
#pragma once

#include <git2.h>

#include <chrono>
#include <optional>
#include <string>

#include "engine/repo_url.h"
#include "sources/stall_timer.h"

namespace fleetwave::sources {

struct RemoteAuth {
  const engine::RepositoryConfig* config = nullptr;  // nullptr: no entry matches the URL
  std::string host;                                  // for messages
  int port = 0;                                      // the URL's port (0: the scheme's default)
  // Credentials offered on this connection, per kind (a user name alone is not counted: ssh
  // asks for it before the key).
  int password_attempts = 0;
  int key_attempts = 0;
  // Set by a callback that refused: the user's reason, used instead of libgit2's text.
  std::optional<std::string> failure;
  // Told of every callback (data arrived); may be nullptr.
  StallTimer* stall = nullptr;

  // Why the connection failed: a callback's refusal, the stall bound, else libgit2's text.
  std::string Reason(std::chrono::milliseconds stall_limit) const;
};

// Points `callbacks` at `auth` (which must outlive the connection).
void SetAuthCallbacks(git_remote_callbacks& callbacks, RemoteAuth& auth);

// The first line of a secret file, without its line end; nullopt (and `error` set, naming the
// file) when it cannot be read or is empty.
std::optional<std::string> ReadSecretFile(const std::string& path, std::string* error);

}  // namespace fleetwave::sources
