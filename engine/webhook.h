// Push webhooks (issue 27), as Argo CD's /api/webhook takes them: a GitHub, Gitea, GitLab or
// Bitbucket push event is authenticated (GitHub/Gitea/Bitbucket X-Hub-Signature-256 HMAC-SHA256
// of the body, GitLab X-Gitlab-Token; both compared in constant time), read for the pushed
// repository's URLs and ref, and matched against ApplicationSets: a set is refreshed when one
// of its repositories (generators' and template's repoURL, normalised: repo_url.h) is the
// pushed one and its revision is the pushed ref. Pure functions on values; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/appset/appset.h"

namespace fleetwave::engine {

// HMAC-SHA256 (RFC 2104) of `message` under `key`, as 64 lowercase hex digits.
std::string HmacSha256Hex(std::string_view key, std::string_view message);

// Equal without an early exit (the time taken does not reveal how much of a guess matched).
bool ConstantTimeEqual(std::string_view a, std::string_view b);

struct WebhookPush {
  std::string provider;                // "github", "gitea", "gitlab", "bitbucket"
  std::vector<std::string> repo_urls;  // every URL the payload names the repository by
  std::string ref;                     // "refs/heads/main", "refs/tags/v1"
  std::string default_branch;          // when the payload says ("" otherwise)
};

struct WebhookVerdict {
  // 200 a push to act on (push set); 202 authenticated but not a push (a ping: nothing to
  // do); 400 a body that is no push event; 401 missing or wrong signature or token.
  int status = 401;
  std::string message;  // never contains the secret nor the presented signature
  std::optional<WebhookPush> push;
};

// `headers`: the request's header names in lower case. `secret`: the webhook.secretFile's
// content (never empty: without one the caller refuses every request).
WebhookVerdict CheckWebhook(const std::map<std::string, std::string>& headers,
                            std::string_view body, std::string_view secret);

// True when `revision` (targetRevision as written) follows `push`'s ref: the branch or tag
// name, its full ref name, or ""/HEAD for a push to the default branch (any branch when the
// payload does not name its default). A templated revision may be anything: true.
bool RevisionFollowsPush(const std::string& revision, const WebhookPush& push);

// True when `appset` reads the pushed repository at the pushed ref: a git generator's or the
// template's source (spec.source, spec.sources[]) repoURL names it. A templated repoURL is
// not known before generation: it counts as a match (refreshing costs one ref listing).
bool AppSetFollowsPush(const ApplicationSet& appset, const WebhookPush& push);

}  // namespace fleetwave::engine
