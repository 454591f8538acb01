#include "engine/webhook.h"

#include "engine/repo_url.h"
#include "engine/sha256.h"

namespace fleetwave::engine {
namespace {

std::string HexToBytes(const std::string& hex) {
  std::string out;
  out.reserve(hex.size() / 2);
  auto nibble = [](char c) { return c >= 'a' ? c - 'a' + 10 : c >= 'A' ? c - 'A' + 10 : c - '0'; };
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>((nibble(hex[i]) << 4) | nibble(hex[i + 1])));
  }
  return out;
}

std::string Header(const std::map<std::string, std::string>& headers, const std::string& name) {
  auto it = headers.find(name);
  return it == headers.end() ? "" : it->second;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The string at `path` (keys) of `j`, "" when absent or not a string.
std::string StringAt(const Json& j, std::initializer_list<const char*> path) {
  const Json* at = &j;
  for (const char* key : path) {
    if (!at->is_object()) return "";
    auto it = at->find(key);
    if (it == at->end()) return "";
    at = &*it;
  }
  return at->is_string() ? at->get<std::string>() : "";
}

void AddUrl(WebhookPush& push, const std::string& url) {
  if (!url.empty()) push.repo_urls.push_back(url);
}

bool Templated(const std::string& s) { return s.find("{{") != std::string::npos; }

bool NamesPushedRepo(const std::string& repo_url, const WebhookPush& push) {
  if (Templated(repo_url)) return true;
  const std::string want = NormalizeRepoUrl(repo_url);
  // Across protocols too: a push names a repository by its https and its ssh URL, and a set
  // may use either. Compared by host and path, case-insensitively as Argo CD does.
  auto host_path = [](const std::string& url) -> std::string {
    const std::optional<RepoUrl> u = ParseRepoUrl(url);
    return u ? Lower(u->host + u->path) : url;
  };
  for (const std::string& url : push.repo_urls) {
    if (NormalizeRepoUrl(url) == want || host_path(url) == host_path(repo_url)) return true;
  }
  return false;
}

bool SourceFollows(const Json& source, const WebhookPush& push) {
  if (!source.is_object()) return false;
  const std::string repo = StringAt(source, {"repoURL"});
  if (repo.empty() || !NamesPushedRepo(repo, push)) return false;
  return RevisionFollowsPush(StringAt(source, {"targetRevision"}), push);
}

bool TemplateFollows(const Json& tmpl, const WebhookPush& push) {
  if (!tmpl.is_object()) return false;
  auto spec = tmpl.find("spec");
  if (spec == tmpl.end() || !spec->is_object()) return false;
  if (auto s = spec->find("source"); s != spec->end() && SourceFollows(*s, push)) return true;
  if (auto s = spec->find("sources"); s != spec->end() && s->is_array()) {
    for (const Json& one : *s) {
      if (SourceFollows(one, push)) return true;
    }
  }
  return false;
}

bool GeneratorFollows(const Generator& g, const WebhookPush& push) {
  if (TemplateFollows(g.template_override, push)) return true;
  switch (g.kind) {
    case Generator::Kind::kGit:
      return NamesPushedRepo(g.git.repo_url, push) && RevisionFollowsPush(g.git.revision, push);
    case Generator::Kind::kMatrix:
      for (const Generator& child : g.matrix.generators) {
        if (GeneratorFollows(child, push)) return true;
      }
      return false;
    case Generator::Kind::kMerge:
      for (const Generator& child : g.merge.generators) {
        if (GeneratorFollows(child, push)) return true;
      }
      return false;
    default:
      return false;
  }
}

}  // namespace

std::string HmacSha256Hex(std::string_view key, std::string_view message) {
  constexpr size_t kBlock = 64;
  std::string k(key);
  if (k.size() > kBlock) k = HexToBytes(Sha256Hex(k));
  k.resize(kBlock, '\0');
  std::string inner(kBlock, '\0'), outer(kBlock, '\0');
  for (size_t i = 0; i < kBlock; ++i) {
    inner[i] = static_cast<char>(k[i] ^ 0x36);
    outer[i] = static_cast<char>(k[i] ^ 0x5c);
  }
  inner.append(message);
  outer += HexToBytes(Sha256Hex(inner));
  return Sha256Hex(outer);
}

bool ConstantTimeEqual(std::string_view a, std::string_view b) {
  // The length is no secret (a SHA-256 hex digest, a token's length); the content is.
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return diff == 0;
}

WebhookVerdict CheckWebhook(const std::map<std::string, std::string>& headers,
                            std::string_view body, std::string_view secret) {
  WebhookVerdict out;
  std::string provider, event;
  if (!Header(headers, "x-gitlab-event").empty()) {
    provider = "gitlab";
    event = Header(headers, "x-gitlab-event");
    const std::string token = Header(headers, "x-gitlab-token");
    if (token.empty()) {
      out.message = "GitLab event without X-Gitlab-Token";
      return out;
    }
    if (!ConstantTimeEqual(token, secret)) {
      out.message = "GitLab event with a wrong X-Gitlab-Token";
      return out;
    }
  } else {
    if (!Header(headers, "x-gitea-event").empty()) {
      provider = "gitea";
      event = Header(headers, "x-gitea-event");
    } else if (!Header(headers, "x-github-event").empty()) {
      provider = "github";
      event = Header(headers, "x-github-event");
    } else if (!Header(headers, "x-event-key").empty()) {
      provider = "bitbucket";
      event = Header(headers, "x-event-key");
    } else {
      out.status = 400;
      out.message =
          "not a push webhook: no X-GitHub-Event, X-Gitea-Event, X-Gitlab-Event or X-Event-Key";
      return out;
    }
    // GitHub, Gitea and Bitbucket: "sha256=<hex>"; Gitea's own header is the bare hex.
    std::string signature = Header(headers, "x-hub-signature-256");
    if (signature.empty()) signature = Header(headers, "x-hub-signature");
    if (signature.empty() && provider == "gitea") {
      signature = Header(headers, "x-gitea-signature");
      if (!signature.empty()) signature = "sha256=" + signature;
    }
    if (signature.empty()) {
      out.message = provider + " event without an X-Hub-Signature-256 signature";
      return out;
    }
    const std::string want = "sha256=" + HmacSha256Hex(secret, body);
    if (!ConstantTimeEqual(Lower(signature), want)) {
      out.message = provider + " event with a wrong X-Hub-Signature-256 signature";
      return out;
    }
  }

  const Json payload = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!payload.is_object()) {
    out.status = 400;
    out.message = provider + " event whose body is not a JSON object";
    return out;
  }
  const std::string e = Lower(event);
  const bool is_push = e == "push" || e == "push hook" || e == "tag push hook" ||
                       e == "repo:push" || e == "repo:refs_changed";
  if (!is_push) {
    out.status = 202;
    out.message = provider + " event \"" + event.substr(0, 64) + "\" is not a push: nothing to do";
    return out;
  }
  WebhookPush push;
  push.provider = provider;
  if (provider == "gitlab") {
    push.ref = StringAt(payload, {"ref"});
    for (const char* key : {"git_http_url", "git_ssh_url", "web_url", "http_url", "ssh_url"}) {
      AddUrl(push, StringAt(payload, {"project", key}));
      AddUrl(push, StringAt(payload, {"repository", key}));
    }
    push.default_branch = StringAt(payload, {"project", "default_branch"});
  } else if (provider == "bitbucket") {
    AddUrl(push, StringAt(payload, {"repository", "links", "html", "href"}));
    const Json& changes = payload.contains("push") && payload["push"].is_object()
                              ? payload["push"].value("changes", Json::array())
                              : Json::array();
    if (changes.is_array() && !changes.empty()) {
      const std::string type = StringAt(changes[0], {"new", "type"});
      const std::string name = StringAt(changes[0], {"new", "name"});
      if (!name.empty()) push.ref = (type == "tag" ? "refs/tags/" : "refs/heads/") + name;
    }
    if (push.ref.empty()) {
      // Bitbucket Server: {"changes": [{"ref": {"id": "refs/heads/main"}}]}.
      const Json& server = payload.value("changes", Json::array());
      if (server.is_array() && !server.empty()) push.ref = StringAt(server[0], {"ref", "id"});
    }
  } else {
    push.ref = StringAt(payload, {"ref"});
    for (const char* key : {"html_url", "clone_url", "ssh_url", "git_url", "url"}) {
      AddUrl(push, StringAt(payload, {"repository", key}));
    }
    push.default_branch = StringAt(payload, {"repository", "default_branch"});
  }
  if (push.repo_urls.empty() || push.ref.empty()) {
    out.status = 400;
    out.message = provider + " push event without a repository URL or a ref";
    return out;
  }
  out.status = 200;
  out.message = provider + " push to " + push.ref.substr(0, 200) + " of " +
                RedactUrl(push.repo_urls.front()).substr(0, 300);
  out.push = std::move(push);
  return out;
}

bool RevisionFollowsPush(const std::string& revision, const WebhookPush& push) {
  if (Templated(revision)) return true;
  std::string name = push.ref;
  for (const char* prefix : {"refs/heads/", "refs/tags/"}) {
    if (name.rfind(prefix, 0) == 0) name = name.substr(std::string(prefix).size());
  }
  if (revision.empty() || revision == "HEAD") {
    return push.default_branch.empty() || push.default_branch == name;
  }
  return revision == name || revision == push.ref;
}

bool AppSetFollowsPush(const ApplicationSet& appset, const WebhookPush& push) {
  if (TemplateFollows(appset.template_, push)) return true;
  for (const Generator& g : appset.generators) {
    if (GeneratorFollows(g, push)) return true;
  }
  return false;
}

}  // namespace fleetwave::engine
