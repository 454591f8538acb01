// The daemon's HTTP API as the client commands (`fleetwave get|sync|skip|pause|resume|delete|
// refresh`) use it: where the daemon is (--server URL, else FLEETWAVE_SERVER, else
// http://127.0.0.1:8089) and the token that authorises mutations (--token-file F, else
// FLEETWAVE_TOKEN), a small blocking client behind an interface (the HTTP one sits on
// cluster-clients/http_get.h, so libcurl stays below this layer), and the error text for every
// failure, which names the fix (DescribeFailure, pinned by ClientCliTest.*).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "tools/fleetwave/args.h"

namespace fleetwave::cli {

constexpr const char* kDefaultServer = "http://127.0.0.1:8089";

struct ClientSettings {
  std::string server;         // base URL without a trailing slash
  std::string server_origin;  // "--server", "FLEETWAVE_SERVER" or "the default"
  std::string token;          // empty: none given
  std::string token_origin;   // "--token-file F" or "FLEETWAVE_TOKEN"; empty with no token
  // A daemon serving TLS (fleetwave.yaml's `tls:`): the CA that signed its certificate
  // (--cacert F, else FLEETWAVE_CACERT; empty = the system's trust store), and the client
  // certificate and key it asks for with tls.clientCAFile (--cert F / --key F, else
  // FLEETWAVE_CERT / FLEETWAVE_KEY).
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
};

// The flags every client command takes besides its own.
inline const std::set<std::string>& ClientFlags() {
  static const std::set<std::string> flags = {"--server", "--token-file", "--cacert", "--cert",
                                              "--key"};
  return flags;
}

// Reads the flags and the environment (`getenv` is std::getenv outside tests). nullopt and
// `*error` set when a token file cannot be read.
std::optional<ClientSettings> ResolveClientSettings(
    const Args& args, const std::function<const char*(const char*)>& getenv, std::string* error);

struct ApiReply {
  int status = 0;  // 0: no HTTP answer at all (see transport_error)
  std::string body;
  std::string transport_error;  // why nothing answered, e.g. "connection refused"
  bool ok() const { return status >= 200 && status < 300; }
};

class DaemonClient {
 public:
  virtual ~DaemonClient() = default;
  virtual ApiReply Get(const std::string& path) = 0;
  // A mutation, with the bearer token.
  virtual ApiReply Send(const std::string& method, const std::string& path,
                        const std::string& body) = 0;
  // GET path?watch=1, handing each line to `on_line` until the stream ends, `on_line` returns
  // false or `cancel` is set. The reply says how it ended (a non-2xx answer carries its body).
  virtual ApiReply Watch(const std::string& path,
                         const std::function<bool(std::string_view)>& on_line,
                         const std::atomic<bool>* cancel) = 0;
};

std::unique_ptr<DaemonClient> MakeHttpDaemonClient(const ClientSettings& settings);

// The message for a reply that is not a success, naming what to do about it: the daemon is not
// running at the URL (and how to point at another), the token is missing or wrong (and which
// flag or variable gives it), or what the daemon said (e.g. an application that does not exist,
// and the command that lists them).
std::string DescribeFailure(const ClientSettings& settings, const ApiReply& reply);

// The message for a mutation attempted without any token.
std::string MissingTokenMessage();

}  // namespace fleetwave::cli
