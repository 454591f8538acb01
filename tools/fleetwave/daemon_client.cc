#include "tools/fleetwave/daemon_client.h"

#include <fstream>
#include <sstream>

#include "cluster-clients/http_get.h"
#include "engine/yaml_json.h"

namespace fleetwave::cli {
namespace {

std::string Trim(std::string s) {
  const char* blank = " \t\r\n";
  const size_t first = s.find_first_not_of(blank);
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(blank) - first + 1);
}

std::string TransportError(const clients::SimpleResponse& r) {
  switch (r.error) {
    case clients::NetError::kConnectRefused:
      return "connection refused";
    case clients::NetError::kDns:
      return "unknown host (" + r.error_message + ")";
    case clients::NetError::kTimeout:
      return "no answer in time (" + r.error_message + ")";
    case clients::NetError::kCanceled:
      return "cancelled";
    case clients::NetError::kTls:
      return "TLS failed (" + r.error_message +
             "); a certificate from a private CA needs --cacert F or FLEETWAVE_CACERT, and a "
             "daemon with tls.clientCAFile needs --cert F --key F";
    default:
      return r.error_message.empty() ? "no answer" : r.error_message;
  }
}

class HttpDaemonClient : public DaemonClient {
 public:
  explicit HttpDaemonClient(ClientSettings settings) : settings_(std::move(settings)) {}

  ApiReply Get(const std::string& path) override {
    clients::SimpleRequest request;
    request.url = settings_.server + path;
    request.headers = {"Accept: application/json"};
    Authorize(&request);
    Secure(&request);  // a daemon with a read token wants one for reads too
    return Reply(clients::HttpFetch(request));
  }

  ApiReply Send(const std::string& method, const std::string& path,
                const std::string& body) override {
    clients::SimpleRequest request;
    request.method = method;
    request.url = settings_.server + path;
    request.body = body;
    request.headers = {"Accept: application/json", "Content-Type: application/json"};
    Authorize(&request);
    Secure(&request);
    return Reply(clients::HttpFetch(request));
  }

  ApiReply Watch(const std::string& path, const std::function<bool(std::string_view)>& on_line,
                 const std::atomic<bool>* cancel) override {
    clients::SimpleRequest request;
    request.url =
        settings_.server + path + (path.find('?') == std::string::npos ? "?" : "&") + "watch=1";
    request.timeout = std::chrono::seconds(10);  // to connect; the stream itself lasts
    request.cancel = cancel;
    Authorize(&request);
    Secure(&request);
    return Reply(clients::HttpStreamLines(request, on_line));
  }

 private:
  void Secure(clients::SimpleRequest* request) const {
    request->ca_file = settings_.ca_file;
    request->cert_file = settings_.cert_file;
    request->key_file = settings_.key_file;
  }
  void Authorize(clients::SimpleRequest* request) const {
    if (!settings_.token.empty()) {
      request->headers.push_back("Authorization: Bearer " + settings_.token);
    }
  }

  static ApiReply Reply(const clients::SimpleResponse& r) {
    ApiReply out;
    out.status = r.status;
    out.body = r.body;
    if (r.status == 0 && r.error != clients::NetError::kNone)
      out.transport_error = TransportError(r);
    return out;
  }

  ClientSettings settings_;
};

// The daemon's {"code", "message"} error body, or the raw text when it is not one.
std::string ServerMessage(const std::string& body) {
  const engine::Json doc = engine::Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_object()) {
    auto it = doc.find("message");
    if (it != doc.end() && it->is_string()) return it->get<std::string>();
  }
  return Trim(body);
}

}  // namespace

std::optional<ClientSettings> ResolveClientSettings(
    const Args& args, const std::function<const char*(const char*)>& getenv, std::string* error) {
  ClientSettings s;
  if (auto server = args.Get("--server")) {
    s.server = *server;
    s.server_origin = "--server";
  } else if (const char* env = getenv("FLEETWAVE_SERVER"); env != nullptr && *env != '\0') {
    s.server = env;
    s.server_origin = "FLEETWAVE_SERVER";
  } else {
    s.server = kDefaultServer;
    s.server_origin = "the default";
  }
  if (s.server.find("://") == std::string::npos) s.server = "http://" + s.server;
  while (!s.server.empty() && s.server.back() == '/') s.server.pop_back();

  if (auto file = args.Get("--token-file")) {
    std::ifstream in(*file);
    if (!in) {
      *error = "cannot read the token file " + *file +
               " given with --token-file (it is the file apiTokenFile names in fleetwave.yaml)";
      return std::nullopt;
    }
    std::stringstream text;
    text << in.rdbuf();
    s.token = Trim(text.str());
    if (s.token.empty()) {
      *error = "the token file " + *file + " given with --token-file is empty";
      return std::nullopt;
    }
    s.token_origin = "--token-file " + *file;
  } else if (const char* env = getenv("FLEETWAVE_TOKEN"); env != nullptr && *env != '\0') {
    s.token = Trim(env);
    s.token_origin = "FLEETWAVE_TOKEN";
  }
  auto file_setting = [&](const char* flag, const char* variable, std::string* out) {
    if (auto file = args.Get(flag)) {
      *out = *file;
    } else if (const char* env = getenv(variable); env != nullptr && *env != '\0') {
      *out = env;
    }
  };
  file_setting("--cacert", "FLEETWAVE_CACERT", &s.ca_file);
  file_setting("--cert", "FLEETWAVE_CERT", &s.cert_file);
  file_setting("--key", "FLEETWAVE_KEY", &s.key_file);
  if (s.cert_file.empty() != s.key_file.empty()) {
    *error =
        "a client certificate needs both --cert F and --key F (or FLEETWAVE_CERT and "
        "FLEETWAVE_KEY)";
    return std::nullopt;
  }
  return s;
}

std::unique_ptr<DaemonClient> MakeHttpDaemonClient(const ClientSettings& settings) {
  return std::make_unique<HttpDaemonClient>(settings);
}

std::string MissingTokenMessage() {
  return "this command needs the daemon's API token: pass --token-file F (the file apiTokenFile "
         "names in fleetwave.yaml) or set FLEETWAVE_TOKEN";
}

std::string DescribeFailure(const ClientSettings& settings, const ApiReply& reply) {
  if (reply.status == 0) {
    return "cannot reach the fleetwave daemon at " + settings.server + " (" +
           reply.transport_error + "; server from " + settings.server_origin +
           "): is `fleetwave run` running? Point --server URL or FLEETWAVE_SERVER at its API "
           "address (listen.api in fleetwave.yaml)";
  }
  const std::string said = ServerMessage(reply.body);
  if (reply.status == 401) {
    if (settings.token.empty()) return MissingTokenMessage();
    return "the daemon refused the API token from " + settings.token_origin + " (" + said +
           "): use the token in the daemon's apiTokenFile, with --token-file F or FLEETWAVE_TOKEN";
  }
  if (reply.status == 404) {
    std::string hint;
    if (said.rfind("application \"", 0) == 0) hint = " (fleetwave get apps lists them)";
    if (said.rfind("applicationset \"", 0) == 0) hint = " (fleetwave get appsets lists them)";
    if (said.rfind("no route", 0) == 0) {
      hint = " (is " + settings.server + " a fleetwave daemon of this version?)";
    }
    return said + hint;
  }
  return "the daemon answered " + std::to_string(reply.status) + ": " + said;
}

}  // namespace fleetwave::cli
