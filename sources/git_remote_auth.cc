#include "sources/git_remote_auth.h"

#include <arpa/inet.h>
#include <libssh2.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

namespace fleetwave::sources {
namespace {

std::string EntryName(const RemoteAuth& auth) {
  return "repositories entry \"" + auth.config->url + "\"";
}

int Refuse(RemoteAuth& auth, std::string reason) {
  auth.failure = std::move(reason);
  git_error_set_str(GIT_ERROR_NET, auth.failure->c_str());
  return GIT_EUSER;
}

int AcquireCredential(git_credential** out, const char* /*url*/, const char* username_from_url,
                      unsigned int allowed_types, void* payload) {
  auto& auth = *static_cast<RemoteAuth*>(payload);
  if (auth.config == nullptr) {
    return Refuse(auth,
                  "the server asks for credentials and no repositories entry of "
                  "fleetwave.yaml matches this URL");
  }
  const engine::RepositoryConfig& c = *auth.config;
  std::string error;
  std::string username = c.username;
  if (!c.username_file.empty()) {
    auto read = ReadSecretFile(c.username_file, &error);
    if (!read) return Refuse(auth, EntryName(auth) + ": usernameFile " + error);
    username = *read;
  }
  if (username.empty() && username_from_url != nullptr) username = username_from_url;

  if ((allowed_types & GIT_CREDENTIAL_SSH_KEY) != 0 && !c.ssh_private_key_file.empty()) {
    std::ifstream probe(c.ssh_private_key_file);
    if (!probe) {
      return Refuse(auth, EntryName(auth) + ": sshPrivateKeyFile " + c.ssh_private_key_file +
                              " cannot be read: " + std::strerror(errno));
    }
    if (username.empty()) username = "git";
    // One offer of each kind per connection: a second request means the server refused the
    // first, and offering it again would only replay it.
    if (++auth.key_attempts > 1) {
      return Refuse(auth, "authentication failed: the server refused the key sshPrivateKeyFile " +
                              c.ssh_private_key_file + " of " + EntryName(auth));
    }
    return git_credential_ssh_key_new(out, username.c_str(), nullptr,
                                      c.ssh_private_key_file.c_str(), nullptr);
  }
  if ((allowed_types & GIT_CREDENTIAL_USERPASS_PLAINTEXT) != 0 && !c.password_file.empty()) {
    auto password = ReadSecretFile(c.password_file, &error);
    if (!password) return Refuse(auth, EntryName(auth) + ": passwordFile " + error);
    // A personal access token needs some user name; servers ignore which.
    if (username.empty()) username = "fleetwave";
    if (++auth.password_attempts > 1) {
      return Refuse(auth,
                    "authentication failed: the server refused the user name and "
                    "passwordFile of " +
                        EntryName(auth));
    }
    return git_credential_userpass_plaintext_new(out, username.c_str(), password->c_str());
  }
  if ((allowed_types & GIT_CREDENTIAL_USERNAME) != 0 && !username.empty()) {
    return git_credential_username_new(out, username.c_str());
  }
  return Refuse(auth, "the server asks for credentials that " + EntryName(auth) +
                          " does not have (https needs passwordFile, ssh sshPrivateKeyFile)");
}

struct SessionFree {
  void operator()(LIBSSH2_SESSION* s) const { libssh2_session_free(s); }
};
struct KnownHostsFree {
  void operator()(LIBSSH2_KNOWNHOSTS* k) const { libssh2_knownhost_free(k); }
};

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct StoreFree {
  void operator()(X509_STORE* s) const { X509_STORE_free(s); }
};
struct StoreCtxFree {
  void operator()(X509_STORE_CTX* c) const { X509_STORE_CTX_free(c); }
};

// https with a caFile: the server's certificate must chain to the file's certificates (the
// issuing CA, and any intermediate the server relies on) and name `host`. Read at every
// connection, as the secret files are. Returns the reason it is refused; nullopt when trusted.
std::optional<std::string> CheckAgainstCaFile(const git_cert_x509& cert, const std::string& host,
                                              const RemoteAuth& auth) {
  const std::string& file = auth.config->ca_file;
  const auto* der = static_cast<const unsigned char*>(cert.data);
  std::unique_ptr<X509, X509Free> leaf(d2i_X509(nullptr, &der, static_cast<long>(cert.len)));
  std::unique_ptr<X509_STORE, StoreFree> store(X509_STORE_new());
  std::unique_ptr<X509_STORE_CTX, StoreCtxFree> ctx(X509_STORE_CTX_new());
  if (!leaf || !store || !ctx) return "the TLS certificate of " + host + " cannot be decoded";
  if (X509_STORE_load_file(store.get(), file.c_str()) != 1) {
    ERR_clear_error();
    return "caFile " + file + " of " + EntryName(auth) + " cannot be read (PEM certificates)";
  }
  X509_VERIFY_PARAM* param = X509_STORE_get0_param(store.get());
  // An address in the URL is matched against the certificate's IP names, a name against its
  // DNS names.
  unsigned char address[16];
  const std::string bare =
      host.size() > 2 && host.front() == '[' ? host.substr(1, host.size() - 2) : host;
  if (inet_pton(AF_INET, bare.c_str(), address) == 1 ||
      inet_pton(AF_INET6, bare.c_str(), address) == 1) {
    X509_VERIFY_PARAM_set1_ip_asc(param, bare.c_str());
  } else {
    X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
  }
  if (X509_STORE_CTX_init(ctx.get(), store.get(), leaf.get(), nullptr) != 1 ||
      X509_verify_cert(ctx.get()) != 1) {
    const int code = X509_STORE_CTX_get_error(ctx.get());
    ERR_clear_error();
    return "the TLS certificate of " + host + " is not trusted by caFile " + file + ": " +
           X509_verify_cert_error_string(code);
  }
  return std::nullopt;
}

int CheckHostKey(git_cert* cert, int valid, const char* host, void* payload) {
  auto& auth = *static_cast<RemoteAuth*>(payload);
  if (cert->cert_type == GIT_CERT_X509) {
    if (auth.config != nullptr && !auth.config->ca_file.empty()) {
      // Only the caFile's CAs are trusted for this entry: libgit2's verdict (the system's
      // CAs) is neither needed nor enough.
      if (auto problem =
              CheckAgainstCaFile(*reinterpret_cast<const git_cert_x509*>(cert), host, auth)) {
        return Refuse(auth, *problem);
      }
      return 0;
    }
    return valid ? 0
                 : Refuse(auth, "the TLS certificate of " + std::string(host) +
                                    " is not trusted by the system's CAs (give the CA in a "
                                    "repositories entry's caFile)");
  }
  if (cert->cert_type != GIT_CERT_HOSTKEY_LIBSSH2) {
    return Refuse(auth, "the server " + std::string(host) + " sent no certificate to verify");
  }
  const std::string where = auth.port == 0 || auth.port == 22
                                ? std::string(host)
                                : "[" + std::string(host) + "]:" + std::to_string(auth.port);
  if (auth.config != nullptr && auth.config->insecure_ignore_host_key) return 0;
  if (auth.config == nullptr || auth.config->known_hosts_file.empty()) {
    return Refuse(auth, "the host key of " + where +
                            " cannot be verified: no repositories entry with knownHostsFile "
                            "matches this URL");
  }
  const auto* key = reinterpret_cast<const git_cert_hostkey*>(cert);
  if ((key->type & GIT_CERT_SSH_RAW) == 0) {
    return Refuse(auth, "the host key of " + where + " was not given to fleetwave to verify");
  }
  std::unique_ptr<LIBSSH2_SESSION, SessionFree> session(libssh2_session_init());
  std::unique_ptr<LIBSSH2_KNOWNHOSTS, KnownHostsFree> known(
      session ? libssh2_knownhost_init(session.get()) : nullptr);
  const std::string& file = auth.config->known_hosts_file;
  if (!known ||
      libssh2_knownhost_readfile(known.get(), file.c_str(), LIBSSH2_KNOWNHOST_FILE_OPENSSH) < 0) {
    return Refuse(auth, "knownHostsFile " + file + " of " + EntryName(auth) +
                            " cannot be read (OpenSSH known_hosts format)");
  }
  struct libssh2_knownhost* found = nullptr;
  const int check = libssh2_knownhost_checkp(
      known.get(), host, auth.port == 0 ? 22 : auth.port, key->hostkey, key->hostkey_len,
      LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW, &found);
  switch (check) {
    case LIBSSH2_KNOWNHOST_CHECK_MATCH:
      return 0;
    case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
      return Refuse(auth, "the host key of " + where + " does not match its entry in " + file +
                              " (refused: the server may be an impostor, or its key changed)");
    case LIBSSH2_KNOWNHOST_CHECK_NOTFOUND:
      return Refuse(auth, "the host key of " + where + " is not in " + file +
                              " (add it, e.g. from ssh-keyscan, after checking it)");
    default:
      return Refuse(auth, "the host key of " + where + " cannot be checked against " + file);
  }
}

int OnTransfer(const git_indexer_progress* /*stats*/, void* payload) {
  auto& auth = *static_cast<RemoteAuth*>(payload);
  if (auth.stall != nullptr) auth.stall->Progress();
  return 0;
}

int OnSideband(const char* /*text*/, int /*length*/, void* payload) {
  auto& auth = *static_cast<RemoteAuth*>(payload);
  if (auth.stall != nullptr) auth.stall->Progress();
  return 0;
}

}  // namespace

void SetAuthCallbacks(git_remote_callbacks& callbacks, RemoteAuth& auth) {
  callbacks.credentials = AcquireCredential;
  callbacks.certificate_check = CheckHostKey;
  callbacks.transfer_progress = OnTransfer;
  callbacks.sideband_progress = OnSideband;
  callbacks.payload = &auth;
}

std::string RemoteAuth::Reason(std::chrono::milliseconds stall_limit) const {
  if (failure) return *failure;
  if (stall != nullptr && stall->fired()) {
    const long long ms = stall_limit.count();
    return host + " did not answer for " +
           (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms") +
           " (timed out)";
  }
  const git_error* e = git_error_last();
  return e != nullptr && e->message != nullptr ? e->message : "unknown libgit2 error";
}

std::optional<std::string> ReadSecretFile(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + " cannot be read: " + std::strerror(errno);
    return std::nullopt;
  }
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  if (line.empty()) {
    *error = path + " is empty";
    return std::nullopt;
  }
  return line;
}

}  // namespace fleetwave::sources
