"""fleet_bench's probe set (issue 25's method): a small ApplicationSet rolled again and again
while the rest of the fleet stays watched and idle, so one run gives hundreds of step advances
(enough for a p99) instead of one per set and step.

The probe set, `probe`, has one app on each of PROBE_STEPS clusters, one RollingSync step per
app (maxUpdate 1), so each rollout of it gives PROBE_STEPS - 1 step advances. Its manifests live
in a repository of their own, so a probe commit changes no main set's revision. This module is
pure: the set's document and the judgement from kubesim's records; fleet_bench drives it.
"""
import math

PROBE = "probe"
PROBE_STEPS = 3
APPLIED = ("namespaces", "services", "deployments")


def probe_clusters(n):
    """The last PROBE_STEPS clusters: away from sim-0/sim-1, which the floor uses."""
    return ["sim-%d" % i for i in range(n - PROBE_STEPS, n)]


def probe_appset(clusters, servers, repo):
    """The probe ApplicationSet: cluster i of `clusters` is step i + 1, one app per step."""
    elements = [{"cluster": c, "url": servers[c], "step": "p%d" % (i + 1)}
                for i, c in enumerate(clusters)]
    steps = [{"matchExpressions": [{"key": "step", "operator": "In", "values": ["p%d" % k]}],
              "maxUpdate": 1} for k in range(1, len(clusters) + 1)]
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet",
            "metadata": {"name": PROBE, "namespace": "fleetwave"},
            "spec": {"generators": [{"list": {"elements": elements}}],
                     "goTemplate": True, "goTemplateOptions": ["missingkey=error"],
                     "template": {"metadata": {"name": "{{.cluster}}-" + PROBE,
                                               "labels": {"step": "{{.step}}"}},
                                  "spec": {"project": "default",
                                           "source": {"repoURL": "file://" + repo,
                                                      "targetRevision": "HEAD", "path": "app"},
                                           "destination": {"server": "{{.url}}",
                                                           "namespace": PROBE},
                                           "syncPolicy": {"syncOptions":
                                                          ["CreateNamespace=true"]}}},
                     "strategy": {"type": "RollingSync", "rollingSync": {"steps": steps}}}}


def judge_probe(audit, events, clusters, rounds):
    """Per probe round (`rounds`: [(commit time, end of the round's window)]), from kubesim's
    records only: the step advances (last app of step k available -> first apply of step
    k + 1), the commit -> first apply of step 1, and ordering violations (a write to step k + 1
    before step k's app was available)."""
    advances, first_apply, violations, unfinished = [], [], [], 0
    for r, (t0, t1) in enumerate(rounds):
        first_write, deploy, done = {}, {}, {}
        for a in audit:
            if (a["ns"] == PROBE and a["cluster"] in clusters and a["resource"] in APPLIED
                    and t0 <= a["t"] < t1):
                first_write.setdefault(a["cluster"], a["t"])
                if a["resource"] == "deployments":
                    deploy.setdefault(a["cluster"], a)
        for e in events:
            c = e["cluster"]
            if (e["ns"] == PROBE and e["name"] == "web" and c in deploy and c not in done
                    and t0 <= e["t"] < t1 and e["t"] >= deploy[c]["t"]
                    and e["gen"] >= deploy[c]["gen"]):
                done[c] = e["t"]
        unfinished += sum(1 for c in clusters if c not in done)
        if clusters[0] in first_write:
            first_apply.append((first_write[clusters[0]] - t0) * 1000.0)
        for k in range(1, len(clusters)):
            prev, cur = clusters[k - 1], clusters[k]
            if prev not in done or cur not in first_write:
                continue
            if first_write[cur] < done[prev]:
                violations.append("probe round %d step %d: written before step %d's app was "
                                  "available" % (r, k + 1, k))
                continue
            advances.append((first_write[cur] - done[prev]) * 1000.0)
    return {"step_latencies_ms": advances, "first_apply_ms": first_apply,
            "violations": violations, "unfinished": unfinished}


def ratio(a, b):
    return a / b if b and not math.isnan(b) else float("nan")
