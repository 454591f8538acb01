// The ApplicationSet's ErrorOccurred condition from the repositories its apps (or its git
// generators) could not read this reconcile (issue 27): a fetch that failed (an unreachable
// host, DNS, a 401, a refused host key, a timeout) or a revision the repository does not have
// (a branch deleted, a SHA force-pushed away). The apps keep their pinned commit and nothing is
// deleted (ObservedApp's source_error; the last good generation while a git generator's
// repository fails); this is what tells the set's reader why, until a reconcile reads every
// repository again. Pure; pinned by tests/engine/daemon/repository_condition_test.cc.
#pragma once

#include <optional>
#include <vector>

#include "engine/error.h"
#include "engine/rollingsync/appset_reconcile.h"
#include "engine/rollingsync/rollout_conditions.h"
#include "engine/time.h"

namespace fleetwave::engine {

inline constexpr const char* kRepositoryUnavailable = "RepositoryUnavailable";
inline constexpr const char* kRevisionNotFound = "RevisionNotFound";

// True for the ErrorOccurred this file sets (not the rollout's own).
bool IsRepositoryCondition(const AppSetCondition& condition);

// The distinct repository errors of `apps` (ObservedApp::repository_errors) and of the set's
// git generators (`generator_errors`: a repository only a generator reads), sorted by their
// text: sets with many apps on one repository report it once.
std::vector<Error> RepositoryErrorsOf(const std::vector<ObservedApp>& apps,
                                      const std::vector<Error>& generator_errors = {});

// ErrorOccurred=True for `errors` (nullopt when there are none): reason RevisionNotFound when
// every one is a revision the repository lacks (kNotFound), else RepositoryUnavailable; the
// message lists each error as "<repository URL>: <reason>" (the URL's password, if any, shown
// as ***), at most three, then how many more.
std::optional<AppSetCondition> RepositoryErrorCondition(const std::vector<Error>& errors);

// `conditions` after a reconcile that found `errors`: the repository condition set (its
// lastTransitionTime kept while it says the same), or removed once there are none. Another
// ErrorOccurred that is True (no steps, progressive syncs off) keeps its place: it says why the
// set is not rolled out at all, which matters more.
std::vector<AppSetCondition> ApplyRepositoryErrors(const std::vector<AppSetCondition>& conditions,
                                                   const std::vector<Error>& errors, Time now);

// The status a set shows while it has no generation to decide on (after a start, before its
// first generation in this process) and its generation fails on repositories only its git
// generators read (`errors`, GenerateResult::repository_errors): `stored_status` as the store
// holds it — steps, application statuses and their pins, every other field — with the
// ErrorOccurred ApplyRepositoryErrors gives for `errors`. It is shown, never stored: nothing is
// decided until a generation succeeds, and that decision's own repository condition replaces
// it. `shown`: what this returned last time (null at first), whose repository condition keeps
// its lastTransitionTime while it says the same. Malformed parts of `stored_status` are
// `issues` (and left out, as a decision leaves them out).
Json StoredStatusWithRepositoryErrors(const Json& stored_status, const Json& shown,
                                      const std::vector<Error>& errors, Time now, Issues& issues);

}  // namespace fleetwave::engine
