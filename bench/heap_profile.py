"""fleet_bench --heap-profile DIR (issue 26): where fleetwave's heap goes, per app and per cluster.

fleetwave links jemalloc (tools/fleetwave/CMakeLists.txt, FLEETWAVE_JEMALLOC), whose sampling
heap profiler needs no code in the daemon: MALLOC_CONF (malloc_conf below) turns it on at start,
and a dump is taken at a chosen moment by calling jemalloc's mallctl("prof.dump") in the running
process from gdb (the daemon is stopped for well under a second). The same gdb call reads the
allocator's own totals (stats.allocated, .resident, .retained, ...), which tell live heap from
pages the allocator keeps. `jeprof --collapsed --inuse_space` then gives every sampled stack;
the top sites (innermost fleetwave frames) and each fleetwave function's cumulative bytes are
written next to the dump, and returned with their bytes divided by the apps and the clusters of
the run. `jeprof --text --inuse_space BINARY DIR/TAG.heap` reads the dump too.

Needs gdb and jeprof (libjemalloc-dev) and a fleetwave that links jemalloc; a fleetwave without
it has no mallctl symbol, and dump() says so instead of writing a profile.
"""
import glob
import os
import re
import subprocess

# lg_prof_sample:17 samples about one allocation per 128 KiB allocated: a few thousand samples
# for a heap of a few hundred MB, at a cost the daemon does not notice at idle.
LG_PROF_SAMPLE = 17
STATS = ("allocated", "active", "metadata", "resident", "mapped", "retained")


def malloc_conf(directory, extra=""):
    """MALLOC_CONF for fleetwave: profiling on from the start, dumps named DIR/fleetwave.*."""
    conf = "prof:true,prof_active:true,lg_prof_sample:%d,prof_prefix:%s" % (
        LG_PROF_SAMPLE, os.path.join(os.path.abspath(directory), "fleetwave"))
    return conf + ("," + extra if extra else "")


def _gdb(pid, commands, timeout=120):
    args = ["gdb", "-p", str(pid), "-batch", "-nx", "-q"]
    for c in commands:
        args += ["-ex", c]
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    return r.stdout + r.stderr


def allocator_stats(pid):
    """jemalloc's totals in bytes (after an epoch refresh), read in the process by gdb."""
    cmds = ["set $v = (unsigned long *) malloc(16)", "set $v[0] = 1", "set $v[1] = 8",
            'call (int) mallctl("epoch", 0, 0, $v, 8)']
    for name in STATS:
        cmds += ["set $v[1] = 8", 'call (int) mallctl("stats.%s", $v, &$v[1], 0, 0)' % name,
                 'printf "STAT %s %%lu\\n", $v[0]' % name]
    cmds.append("call (void) free($v)")
    out = _gdb(pid, cmds)
    stats = {m.group(1): int(m.group(2)) for m in re.finditer(r"^STAT (\w+) (\d+)$", out, re.M)}
    if not stats:
        raise RuntimeError("could not read jemalloc's stats from pid %d (gdb said: %s)"
                           % (pid, out.strip()[-400:]))
    return stats


def _dump(pid, directory):
    before = set(glob.glob(os.path.join(directory, "fleetwave.%d.*.heap" % pid)))
    out = _gdb(pid, ['printf "DUMP %d\\n", (int) mallctl("prof.dump", 0, 0, 0, 0)'])
    m = re.search(r"^DUMP (-?\d+)$", out, re.M)
    after = set(glob.glob(os.path.join(directory, "fleetwave.%d.*.heap" % pid))) - before
    if not m or m.group(1) != "0" or not after:
        raise RuntimeError("prof.dump failed in pid %d (is fleetwave linked with jemalloc and "
                           "MALLOC_CONF prof:true set?): %s" % (pid, out.strip()[-400:]))
    return sorted(after, key=os.path.getmtime)[-1]


def short_name(frame):
    """A frame of jeprof's collapsed stacks without its template arguments, parameters and
    address: `fleetwave::engine::reconcile::ApplicationJson`."""
    frame = re.sub(r"<[0-9a-f]{16}>$", "", frame)
    out, angle, paren = [], 0, 0
    for ch in frame:
        if ch == "<":
            angle += 1
        elif ch == ">" and angle:
            angle -= 1
        elif ch == "(":
            paren += 1
        elif ch == ")" and paren:
            paren -= 1
        elif not angle and not paren:
            out.append(ch)
    return "".join(out).replace("[clone .isra.0]", "").replace("[abi:cxx11]", "").strip()


def collapsed(binary, heap):
    """jeprof --collapsed --inuse_space: [(frames root first, bytes)]."""
    r = subprocess.run(["jeprof", "--collapsed", "--inuse_space", binary, heap],
                       capture_output=True, text=True, timeout=900)
    stacks = []
    for line in r.stdout.splitlines():
        stack, _, n = line.rpartition(" ")
        if stack and n.isdigit():
            stacks.append((stack.split(";"), int(n)))
    if not stacks:
        raise RuntimeError("jeprof read no stacks from %s: %s" % (heap, r.stderr.strip()[-400:]))
    return stacks, r.stdout


def sites(stacks, top=40):
    """Where the in-use bytes were allocated, as fleetwave's code sees it. jeprof's flat view
    charges jemalloc's operator new (a stripped library: it shows as malloc_usable_size), so a
    site here is the innermost fleetwave frame of each stack with the four fleetwave frames
    around it (callee < caller), or the library's innermost frame when fleetwave has none.
    Returns the sites and each fleetwave function's cumulative bytes, the largest first."""
    flat, cum = {}, {}
    for frames, n in stacks:
        own = [short_name(f) for f in frames if "fleetwave::" in f]
        key = " < ".join(reversed(own[-5:])) if own else "(no fleetwave frame) " + short_name(
            frames[-1])
        flat[key] = flat.get(key, 0) + n
        for f in set(own):
            cum[f] = cum.get(f, 0) + n
    order = sorted(flat.items(), key=lambda kv: -kv[1])[:top]
    return order, sorted(cum.items(), key=lambda kv: -kv[1])[:top]


def dump(pid, directory, tag, binary, apps, clusters):
    """One dump now, with the allocator's totals and the top sites, each per app and per
    cluster. Writes DIR/TAG.heap (the dump), DIR/TAG.collapsed (jeprof's stacks, for a flame
    graph) and DIR/TAG.sites.txt (the table below)."""
    stats = allocator_stats(pid)
    heap = _dump(pid, directory)
    named = os.path.join(directory, tag + ".heap")
    os.replace(heap, named)
    stacks, text = collapsed(binary, named)
    with open(os.path.join(directory, tag + ".collapsed"), "w") as f:
        f.write(text)
    total = sum(n for _, n in stacks)
    flat, cum = sites(stacks)

    def per(rows):
        return [{"bytes": b, "bytes_per_app": b / apps, "bytes_per_cluster": b / clusters,
                 "site": s} for s, b in rows]
    profile = {"heap": named, "stats": stats, "sampled_total_bytes": total,
               "allocated_per_app": stats.get("allocated", 0) / apps,
               "resident_per_app": stats.get("resident", 0) / apps,
               "flat": per(flat), "cum": per(cum)}
    with open(os.path.join(directory, tag + ".sites.txt"), "w") as f:
        f.write("%s: %d apps, %d clusters; jemalloc %s; sampled in use %.1f MB\n\n"
                % (tag, apps, clusters, " ".join("%s %.1f MB" % (k, v / 2 ** 20)
                                                 for k, v in stats.items()), total / 2 ** 20))
        for title, rows_ in (("sites (innermost fleetwave frames)", profile["flat"]),
                             ("cumulative per fleetwave function", profile["cum"])):
            f.write("%s\n%9s %10s %12s  %s\n" % (title, "MB", "KB/app", "KB/cluster", "site"))
            for r in rows_:
                f.write("%9.1f %10.2f %12.1f  %s\n" % (
                    r["bytes"] / 2 ** 20, r["bytes_per_app"] / 1024,
                    r["bytes_per_cluster"] / 1024, r["site"]))
            f.write("\n")
    return profile


def rows(profile, tag, top=12):
    """Markdown table rows for fleet_bench's table: the totals and the top flat sites."""
    if not profile:
        return []
    s = profile["stats"]
    out = [("heap %s: jemalloc allocated / active / resident / retained" % tag,
            "%.0f / %.0f / %.0f / %.0f MB (allocated %.1f KB per app, resident %.1f KB)" % (
                s.get("allocated", 0) / 2 ** 20, s.get("active", 0) / 2 ** 20,
                s.get("resident", 0) / 2 ** 20, s.get("retained", 0) / 2 ** 20,
                profile["allocated_per_app"] / 1024, profile["resident_per_app"] / 1024))]
    for r in profile["flat"][:top]:
        out.append(("heap %s site %s" % (tag, r["site"].replace("|", "\\|")),
                    "%.1f MB, %.2f KB per app" % (r["bytes"] / 2 ** 20, r["bytes_per_app"] / 1024)))
    return out
