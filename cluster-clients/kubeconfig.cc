#include "cluster-clients/kubeconfig.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace fleetwave::clients {
namespace {

namespace fs = std::filesystem;

struct Entry {
  YAML::Node node;   // the inner "cluster"/"user"/"context" map
  std::string file;  // the file that defined it
};

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return static_cast<bool>(f) || f.eof();
}

std::string Resolve(const std::string& path, const std::string& defining_file) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(defining_file).parent_path() / path).lexically_normal().string();
}

std::string Str(const YAML::Node& map, const char* key) {
  const YAML::Node n = map[key];
  return n && n.IsScalar() ? n.Scalar() : std::string();
}

bool Bool(const YAML::Node& map, const char* key) {
  const YAML::Node n = map[key];
  if (!n || !n.IsScalar()) return false;
  const std::string& s = n.Scalar();
  return s == "true" || s == "True" || s == "TRUE";
}

// Reads the named list ("clusters", "users", "contexts") of one file into `into`, keeping the
// first definition of every name.
void Collect(const YAML::Node& doc, const char* list, const char* inner, const std::string& file,
             std::map<std::string, Entry>* into, std::vector<std::string>* order,
             std::vector<std::string>* errors) {
  const YAML::Node items = doc[list];
  if (!items) return;
  if (!items.IsSequence()) {
    errors->push_back(file + ": \"" + list + "\" must be a list");
    return;
  }
  for (const YAML::Node& item : items) {
    if (!item.IsMap()) continue;
    const std::string name = Str(item, "name");
    if (name.empty()) {
      errors->push_back(file + ": an entry of \"" + list + "\" has no name");
      continue;
    }
    if (into->count(name)) continue;  // first definition wins, as kubectl merges
    YAML::Node body = item[inner];
    (*into)[name] = Entry{body && body.IsMap() ? body : YAML::Node(YAML::NodeType::Map), file};
    if (order) order->push_back(name);
  }
}

// Reads a `<field>-data` (base64) or `<field>` (a file) pair. Returns false with `error` set.
bool DataOrFile(const Entry& e, const char* field, std::string* out, std::string* error) {
  const std::string data = Str(e.node, (std::string(field) + "-data").c_str());
  const std::string file = Str(e.node, field);
  if (!data.empty()) {
    auto decoded = DecodeBase64(data);
    if (!decoded) {
      *error = std::string(field) + "-data is not valid base64";
      return false;
    }
    *out = std::move(*decoded);
    return true;
  }
  if (!file.empty()) {
    const std::string path = Resolve(file, e.file);
    if (!ReadFile(path, out)) {
      *error = std::string("cannot read ") + field + " " + path;
      return false;
    }
  }
  return true;
}

bool ParseExec(const Entry& user, ExecConfig* exec, std::string* error) {
  const YAML::Node n = user.node["exec"];
  exec->api_version = Str(n, "apiVersion");
  exec->command = Str(n, "command");
  exec->install_hint = Str(n, "installHint");
  exec->provide_cluster_info = Bool(n, "provideClusterInfo");
  exec->interactive_mode = Str(n, "interactiveMode");
  if (exec->api_version != "client.authentication.k8s.io/v1" &&
      exec->api_version != "client.authentication.k8s.io/v1beta1") {
    *error = "exec plugin apiVersion \"" + exec->api_version +
             "\" is not supported (client.authentication.k8s.io/v1 or v1beta1)";
    return false;
  }
  if (exec->command.empty()) {
    *error = "exec plugin has no command";
    return false;
  }
  // client-go: v1 requires interactiveMode; v1beta1 defaults it to IfAvailable.
  if (exec->interactive_mode.empty()) {
    if (exec->api_version == "client.authentication.k8s.io/v1") {
      *error = "exec plugin: interactiveMode must be specified for client.authentication.k8s.io/v1";
      return false;
    }
    exec->interactive_mode = "IfAvailable";
  }
  if (exec->interactive_mode == "Always") {
    *error =
        "exec plugin requires an interactive terminal (interactiveMode: Always), which "
        "fleetwave does not have";
    return false;
  }
  // A relative command with a separator is relative to the kubeconfig; a bare name is looked
  // up on PATH.
  if (exec->command.find('/') != std::string::npos)
    exec->command = Resolve(exec->command, user.file);
  if (const YAML::Node args = n["args"]; args && args.IsSequence())
    for (const auto& a : args) exec->args.push_back(a.Scalar());
  if (const YAML::Node env = n["env"]; env && env.IsSequence())
    for (const auto& e : env) exec->env.emplace_back(Str(e, "name"), Str(e, "value"));
  return true;
}

}  // namespace

std::optional<std::string> DecodeBase64(const std::string& text) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int bits = 0;
  unsigned int acc = 0;
  int padding = 0;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding) return std::nullopt;  // data after padding
    const auto pos = kAlphabet.find(c);
    if (pos == std::string::npos) return std::nullopt;
    acc = (acc << 6) | static_cast<unsigned int>(pos);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if (padding > 2) return std::nullopt;
  return out;
}

std::vector<std::string> SplitKubeconfigPath(const std::string& value) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : value) {
    if (c == ':') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

KubeconfigSet LoadKubeconfigs(const std::vector<std::string>& paths) {
  KubeconfigSet set;
  std::map<std::string, Entry> clusters, users, contexts;
  std::vector<std::string> context_order;
  for (const std::string& path : paths) {
    std::string text;
    if (!ReadFile(path, &text)) {
      set.errors.push_back(path + ": cannot read kubeconfig");
      continue;
    }
    YAML::Node doc;
    try {
      doc = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      // yaml-cpp's message names a position, not content, so it cannot leak a token.
      set.errors.push_back(path + ": invalid YAML at line " + std::to_string(e.mark.line + 1) +
                           ", column " + std::to_string(e.mark.column + 1));
      continue;
    }
    if (!doc || doc.IsNull()) continue;  // an empty kubeconfig is valid
    if (!doc.IsMap()) {
      set.errors.push_back(path + ": not a kubeconfig (expected a map)");
      continue;
    }
    Collect(doc, "clusters", "cluster", path, &clusters, nullptr, &set.errors);
    Collect(doc, "users", "user", path, &users, nullptr, &set.errors);
    Collect(doc, "contexts", "context", path, &contexts, &context_order, &set.errors);
    if (set.current_context.empty()) set.current_context = Str(doc, "current-context");
  }

  for (const std::string& name : context_order) {
    const Entry& ctx = contexts[name];
    const std::string where = ctx.file + ": context \"" + name + "\": ";
    const std::string cluster_name = Str(ctx.node, "cluster");
    const std::string user_name = Str(ctx.node, "user");
    auto cluster_it = clusters.find(cluster_name);
    if (cluster_name.empty() || cluster_it == clusters.end()) {
      set.errors.push_back(where + "cluster \"" + cluster_name + "\" is not defined");
      continue;
    }
    ClusterConfig c;
    c.name = name;
    c.source_file = ctx.file;
    c.default_namespace = Str(ctx.node, "namespace");
    const Entry& cl = cluster_it->second;
    c.server = Str(cl.node, "server");
    while (!c.server.empty() && c.server.back() == '/') c.server.pop_back();
    if (c.server.empty()) {
      set.errors.push_back(where + "cluster \"" + cluster_name + "\" has no server");
      continue;
    }
    if (c.server.rfind("https://", 0) != 0 && c.server.rfind("http://", 0) != 0) {
      set.errors.push_back(where + "server \"" + c.server + "\" is not an http(s) URL");
      continue;
    }
    std::string error;
    if (!DataOrFile(cl, "certificate-authority", &c.ca_pem, &error)) {
      set.errors.push_back(where + error);
      continue;
    }
    c.insecure_skip_tls_verify = Bool(cl.node, "insecure-skip-tls-verify");
    if (c.insecure_skip_tls_verify && !c.ca_pem.empty()) {
      // kubectl refuses this combination too: which one did the user mean?
      set.errors.push_back(where +
                           "specifying a root certificates file with the insecure flag is not "
                           "allowed");
      continue;
    }
    c.proxy_url = Str(cl.node, "proxy-url");
    c.tls_server_name = Str(cl.node, "tls-server-name");
    if (!user_name.empty()) {
      auto user_it = users.find(user_name);
      if (user_it == users.end()) {
        set.errors.push_back(where + "user \"" + user_name + "\" is not defined");
        continue;
      }
      const Entry& u = user_it->second;
      if (!DataOrFile(u, "client-certificate", &c.client_cert_pem, &error) ||
          !DataOrFile(u, "client-key", &c.client_key_pem, &error)) {
        set.errors.push_back(where + error);
        continue;
      }
      if (c.client_cert_pem.empty() != c.client_key_pem.empty()) {
        set.errors.push_back(where + "client certificate and key must be given together");
        continue;
      }
      c.token = Str(u.node, "token");
      c.token_file = Resolve(Str(u.node, "tokenFile"), u.file);
      c.username = Str(u.node, "username");
      c.password = Str(u.node, "password");
      if (u.node["auth-provider"]) {
        set.errors.push_back(where + "auth-provider plugins are not supported; use an exec plugin");
        continue;
      }
      if (u.node["exec"]) {
        ExecConfig exec;
        if (!ParseExec(u, &exec, &error)) {
          set.errors.push_back(where + error);
          continue;
        }
        c.exec = std::move(exec);
      }
    }
    if (c.insecure_skip_tls_verify)
      set.warnings.push_back(where +
                             "insecure-skip-tls-verify is set: the server's certificate is not "
                             "verified");
    set.clusters.push_back(std::move(c));
  }
  return set;
}

}  // namespace fleetwave::clients
