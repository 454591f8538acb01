#include "cluster-clients/kubeconfig.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "cluster-clients/base64.h"
#include "engine/yaml_json.h"

namespace fleetwave::clients {
namespace {

namespace fs = std::filesystem;
using engine::Issue;
using engine::Issues;

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

// yaml-cpp throws when a scalar is indexed or an invalid node is asked for its type, so every
// read goes through these: a wrong shape becomes an issue naming file and field, never an
// exception (pinned by KubeconfigShapeTest).
std::string Join(const std::string& path, const char* key) {
  return path.empty() ? std::string(key) : path + "." + key;
}

std::string TypeName(const YAML::Node& n) {
  if (n.IsMap()) return "object";
  if (n.IsSequence()) return "array";
  if (n.IsNull()) return "null";
  return "string";
}

// Reads one file's entries; every problem is an issue naming the file and the field.
class Reader {
 public:
  Reader(std::string file, Issues* issues) : file_(std::move(file)), issues_(issues) {}
  const std::string& file() const { return file_; }

  void Add(const YAML::Node& at, const std::string& path, const std::string& message) {
    issues_->push_back({file_, engine::PosOf(at), path, message});
  }
  // The child `key` of a map; an undefined node when `map` is not a map or lacks the key.
  static YAML::Node Child(const YAML::Node& map, const char* key) {
    if (!map || !map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node n = map[key];
    return n ? n : YAML::Node(YAML::NodeType::Undefined);
  }
  // A string field: absent or null is "", a scalar is its text, anything else an issue.
  std::string Str(const YAML::Node& map, const std::string& path, const char* key, bool* ok) {
    const YAML::Node n = Child(map, key);
    if (!n || n.IsNull()) return "";
    if (n.IsScalar()) return n.Scalar();
    Wrong(n, Join(path, key), "string");
    *ok = false;
    return "";
  }
  bool Bool(const YAML::Node& map, const std::string& path, const char* key, bool* ok) {
    const YAML::Node n = Child(map, key);
    if (!n || n.IsNull()) return false;
    if (n.IsScalar()) {
      const std::string& s = n.Scalar();
      if (s == "true" || s == "True" || s == "TRUE") return true;
      if (s == "false" || s == "False" || s == "FALSE") return false;
    }
    Add(n, Join(path, key), "wrong type: expected boolean, got " + TypeName(n));
    *ok = false;
    return false;
  }
  // A map field: absent or null is an empty map (as Go decodes null into a struct).
  YAML::Node Map(const YAML::Node& map, const std::string& path, const char* key, bool* ok) {
    const YAML::Node n = Child(map, key);
    if (n && n.IsMap()) return n;
    if (n && !n.IsNull()) {
      Wrong(n, Join(path, key), "object");
      *ok = false;
    }
    return YAML::Node(YAML::NodeType::Map);
  }
  void Wrong(const YAML::Node& n, const std::string& path, const std::string& want) {
    Add(n, path, "wrong type: expected " + want + ", got " + TypeName(n));
  }

 private:
  std::string file_;
  Issues* issues_;
};

struct ClusterEntry {
  std::string file, path;  // where it was defined, e.g. clusters[2]
  YAML::Node node;
  std::string server, ca, ca_data, proxy_url, tls_server_name;
  bool insecure = false;
  bool ok = true;  // false when a field had the wrong shape (already reported)
};

struct UserEntry {
  std::string file, path;
  YAML::Node node;
  std::string cert, cert_data, key, key_data, token, token_file, username, password;
  bool auth_provider = false;
  std::optional<ExecConfig> exec;
  bool ok = true;
};

struct ContextEntry {
  std::string file, path;
  YAML::Node node;
  std::string cluster, user, ns;
  bool ok = true;
};

void DecodeCluster(Reader& r, const YAML::Node& body, const std::string& p, ClusterEntry* c) {
  c->server = r.Str(body, p, "server", &c->ok);
  c->ca = r.Str(body, p, "certificate-authority", &c->ok);
  c->ca_data = r.Str(body, p, "certificate-authority-data", &c->ok);
  c->insecure = r.Bool(body, p, "insecure-skip-tls-verify", &c->ok);
  c->proxy_url = r.Str(body, p, "proxy-url", &c->ok);
  c->tls_server_name = r.Str(body, p, "tls-server-name", &c->ok);
}

void DecodeExec(Reader& r, const YAML::Node& n, const std::string& p, UserEntry* u) {
  ExecConfig e;
  e.api_version = r.Str(n, p, "apiVersion", &u->ok);
  e.command = r.Str(n, p, "command", &u->ok);
  e.install_hint = r.Str(n, p, "installHint", &u->ok);
  e.provide_cluster_info = r.Bool(n, p, "provideClusterInfo", &u->ok);
  e.interactive_mode = r.Str(n, p, "interactiveMode", &u->ok);
  if (const YAML::Node args = Reader::Child(n, "args"); args && !args.IsNull()) {
    if (!args.IsSequence()) {
      r.Wrong(args, p + ".args", "array");
      u->ok = false;
    } else {
      for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i].IsScalar()) {
          e.args.push_back(args[i].Scalar());
        } else {
          r.Wrong(args[i], p + ".args[" + std::to_string(i) + "]", "string");
          u->ok = false;
        }
      }
    }
  }
  if (const YAML::Node env = Reader::Child(n, "env"); env && !env.IsNull()) {
    if (!env.IsSequence()) {
      r.Wrong(env, p + ".env", "array");
      u->ok = false;
    } else {
      for (std::size_t i = 0; i < env.size(); ++i) {
        const std::string ep = p + ".env[" + std::to_string(i) + "]";
        if (!env[i].IsMap()) {
          r.Wrong(env[i], ep, "object");
          u->ok = false;
          continue;
        }
        e.env.emplace_back(r.Str(env[i], ep, "name", &u->ok), r.Str(env[i], ep, "value", &u->ok));
      }
    }
  }
  u->exec = std::move(e);
}

void DecodeUser(Reader& r, const YAML::Node& body, const std::string& p, UserEntry* u) {
  u->cert = r.Str(body, p, "client-certificate", &u->ok);
  u->cert_data = r.Str(body, p, "client-certificate-data", &u->ok);
  u->key = r.Str(body, p, "client-key", &u->ok);
  u->key_data = r.Str(body, p, "client-key-data", &u->ok);
  u->token = r.Str(body, p, "token", &u->ok);
  u->token_file = r.Str(body, p, "tokenFile", &u->ok);
  u->username = r.Str(body, p, "username", &u->ok);
  u->password = r.Str(body, p, "password", &u->ok);
  u->auth_provider = static_cast<bool>(Reader::Child(body, "auth-provider"));
  if (const YAML::Node exec = Reader::Child(body, "exec"); exec && !exec.IsNull()) {
    if (exec.IsMap()) {
      DecodeExec(r, exec, p + ".exec", u);
    } else {
      r.Wrong(exec, p + ".exec", "object");
      u->ok = false;
    }
  }
}

void DecodeContext(Reader& r, const YAML::Node& body, const std::string& p, ContextEntry* c) {
  c->cluster = r.Str(body, p, "cluster", &c->ok);
  c->user = r.Str(body, p, "user", &c->ok);
  c->ns = r.Str(body, p, "namespace", &c->ok);
}

// Reads the named list ("clusters", "users", "contexts") of one file into `into`, keeping the
// first definition of every name as kubectl merges (KubeconfigTest.FirstFileWinsWhenMerging).
template <typename Entry, typename Decode>
void Collect(Reader& r, const YAML::Node& doc, const char* list, const char* inner,
             std::map<std::string, Entry>* into, std::vector<std::string>* order, Decode decode) {
  const YAML::Node items = Reader::Child(doc, list);
  if (!items || items.IsNull()) return;
  if (!items.IsSequence()) {
    r.Wrong(items, list, "array");
    return;
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    const YAML::Node item = items[i];
    const std::string p = std::string(list) + "[" + std::to_string(i) + "]";
    if (!item.IsMap()) {
      r.Wrong(item, p, "object");
      continue;
    }
    bool name_ok = true;
    const std::string name = r.Str(item, p, "name", &name_ok);
    if (!name_ok) continue;
    if (name.empty()) {
      r.Add(item, p + ".name", "an entry of \"" + std::string(list) + "\" has no name");
      continue;
    }
    if (into->count(name)) continue;  // first definition wins
    Entry e;
    e.file = r.file();
    e.path = p;
    e.node = item;
    const YAML::Node body = r.Map(item, p, inner, &e.ok);
    decode(r, body, p + "." + inner, &e);
    (*into)[name] = std::move(e);
    if (order) order->push_back(name);
  }
}

// Reads a `<field>-data` (base64) or `<field>` (a file) pair. Returns false with `error` set.
bool DataOrFile(const std::string& data, const std::string& file, const std::string& defining_file,
                const char* field, std::string* out, std::string* error) {
  if (!data.empty()) {
    auto decoded = Base64Decode(data);
    if (!decoded) {
      *error = std::string(field) + "-data is not valid base64";
      return false;
    }
    *out = std::move(*decoded);
    return true;
  }
  if (!file.empty()) {
    const std::string path = Resolve(file, defining_file);
    if (!ReadFile(path, out)) {
      *error = std::string("cannot read ") + field + " " + path;
      return false;
    }
  }
  return true;
}

bool CheckExec(const UserEntry& user, ExecConfig* exec, std::string* error) {
  *exec = *user.exec;
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
  return true;
}

}  // namespace

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
  std::map<std::string, ClusterEntry> clusters;
  std::map<std::string, UserEntry> users;
  std::map<std::string, ContextEntry> contexts;
  std::vector<std::string> context_order;
  for (const std::string& path : paths) {
    std::string text;
    if (!ReadFile(path, &text)) {
      set.errors.push_back({path, {}, "", "cannot read kubeconfig"});
      continue;
    }
    YAML::Node doc;
    try {
      doc = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      // yaml-cpp's message names a position, not content, so it cannot leak a token.
      set.errors.push_back({path,
                            {},
                            "",
                            "invalid YAML at line " + std::to_string(e.mark.line + 1) +
                                ", column " + std::to_string(e.mark.column + 1)});
      continue;
    }
    if (!doc || doc.IsNull()) continue;  // an empty kubeconfig is valid
    Reader r(path, &set.errors);
    if (!doc.IsMap()) {
      r.Add(doc, "", "not a kubeconfig (expected a map)");
      continue;
    }
    Collect(r, doc, "clusters", "cluster", &clusters, nullptr, DecodeCluster);
    Collect(r, doc, "users", "user", &users, nullptr, DecodeUser);
    Collect(r, doc, "contexts", "context", &contexts, &context_order, DecodeContext);
    bool ok = true;
    const std::string current = r.Str(doc, "", "current-context", &ok);
    if (set.current_context.empty()) set.current_context = current;
  }

  for (const std::string& name : context_order) {
    const ContextEntry& ctx = contexts[name];
    if (!ctx.ok) continue;  // its wrong field is already reported
    auto fail = [&](const std::string& what) {
      set.errors.push_back(
          {ctx.file, engine::PosOf(ctx.node), ctx.path, "context \"" + name + "\": " + what});
    };
    auto cluster_it = clusters.find(ctx.cluster);
    if (ctx.cluster.empty() || cluster_it == clusters.end()) {
      fail("cluster \"" + ctx.cluster + "\" is not defined");
      continue;
    }
    const ClusterEntry& cl = cluster_it->second;
    if (!cl.ok) continue;
    ClusterConfig c;
    c.name = name;
    c.source_file = ctx.file;
    c.default_namespace = ctx.ns;
    c.server = cl.server;
    while (!c.server.empty() && c.server.back() == '/') c.server.pop_back();
    if (c.server.empty()) {
      fail("cluster \"" + ctx.cluster + "\" has no server");
      continue;
    }
    if (c.server.rfind("https://", 0) != 0 && c.server.rfind("http://", 0) != 0) {
      fail("server \"" + c.server + "\" is not an http(s) URL");
      continue;
    }
    std::string error;
    if (!DataOrFile(cl.ca_data, cl.ca, cl.file, "certificate-authority", &c.ca_pem, &error)) {
      fail(error);
      continue;
    }
    c.insecure_skip_tls_verify = cl.insecure;
    if (c.insecure_skip_tls_verify && !c.ca_pem.empty()) {
      // kubectl refuses this combination too: which one did the user mean?
      fail("specifying a root certificates file with the insecure flag is not allowed");
      continue;
    }
    c.proxy_url = cl.proxy_url;
    c.tls_server_name = cl.tls_server_name;
    if (!ctx.user.empty()) {
      auto user_it = users.find(ctx.user);
      if (user_it == users.end()) {
        fail("user \"" + ctx.user + "\" is not defined");
        continue;
      }
      const UserEntry& u = user_it->second;
      if (!u.ok) continue;
      if (!DataOrFile(u.cert_data, u.cert, u.file, "client-certificate", &c.client_cert_pem,
                      &error) ||
          !DataOrFile(u.key_data, u.key, u.file, "client-key", &c.client_key_pem, &error)) {
        fail(error);
        continue;
      }
      if (c.client_cert_pem.empty() != c.client_key_pem.empty()) {
        fail("client certificate and key must be given together");
        continue;
      }
      c.token = u.token;
      c.token_file = Resolve(u.token_file, u.file);
      c.username = u.username;
      c.password = u.password;
      if (u.auth_provider) {
        fail("auth-provider plugins are not supported; use an exec plugin");
        continue;
      }
      if (u.exec) {
        ExecConfig exec;
        if (!CheckExec(u, &exec, &error)) {
          fail(error);
          continue;
        }
        c.exec = std::move(exec);
      }
    }
    if (c.insecure_skip_tls_verify)
      set.warnings.push_back(ctx.file + ": context \"" + name +
                             "\": insecure-skip-tls-verify is set: the server's certificate is "
                             "not verified");
    set.clusters.push_back(std::move(c));
  }
  return set;
}

std::vector<engine::ClusterInfo> ClusterValues(const KubeconfigSet& set) {
  std::vector<engine::ClusterInfo> out;
  for (const ClusterConfig& c : set.clusters) out.push_back({c.name, c.server, {}});
  return out;
}

}  // namespace fleetwave::clients
