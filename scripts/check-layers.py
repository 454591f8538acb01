#!/usr/bin/env python3
"""Fails when a source file includes a header of a layer it must not use.

Every target exports the repository root as its include path, so the compiler alone would let
engine/ include cluster-clients/. This check makes the layering of docs/architecture.md a build
rule: each folder has an allow-list of project folders it may include from and of the kinds of
system headers it may use. Run by CI (scripts/test.sh) and by ctest (LayerCheck.*).

Usage: check-layers.py [--root DIR]   exit 0 clean, 1 with one line per violation.
"""
import argparse
import os
import re
import sys

# Project folders (relative to the root) and what each may include from the project.
# Dependencies point one way: engine <- cluster-clients/sources/store/metrics <- actors <- api
# <- binary. api/ (the HTTP layer) reads the actors' published StatusBoard; no actor includes it.
PRODUCT_BELOW_ACTORS = ["engine", "cluster-clients", "sources", "store", "metrics"]
LAYERS = {
    "engine": ["engine"],
    "cluster-clients": ["cluster-clients", "engine"],
    "sources": ["sources", "engine"],
    "store": ["store", "engine"],
    "metrics": ["metrics", "engine"],
    "actors": ["actors"] + PRODUCT_BELOW_ACTORS,
    "api": ["api", "actors"] + PRODUCT_BELOW_ACTORS,
    "tools/fleetwave": ["tools/fleetwave", "api", "actors"] + PRODUCT_BELOW_ACTORS,
    "tools/kubesim": ["tools/kubesim", "engine"],
    # bench/ may also use the engine tests' pure drivers (the tracker-vs-Plan differential
    # sequences, run there with many seeds), never the fixtures of the other test folders.
    "bench": ["bench", "tools/fleetwave", "api", "actors", "tests/engine"] + PRODUCT_BELOW_ACTORS,
    "tests/engine": None,  # (a layer of its own only so that bench/ can name it)
    "tests": None,  # tests may include anything
}

# System headers: engine/ is pure, so it gets the C++ standard library and the two decoders
# only. A C or POSIX header (<unistd.h>, <sys/...>) there means I/O crept in.
ENGINE_EXTERNAL = re.compile(r"^(yaml-cpp/|nlohmann/)")
STD_HEADER = re.compile(r"^[a-z_0-9]+$")  # <vector>, <cstdint>, <string_view>, ...

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_SUFFIXES = (".cc", ".h", ".cpp", ".hpp")


def layer_of(rel_path):
    """The most specific layer folder that contains rel_path, or None."""
    best = None
    for layer in LAYERS:
        if rel_path == layer or rel_path.startswith(layer + "/"):
            if best is None or len(layer) > len(best):
                best = layer
    return best


def project_target(root, including_file, bracket, name):
    """The repository-relative path an include names, if it is one of ours."""
    candidates = []
    if bracket == '"':
        candidates.append(os.path.join(os.path.dirname(including_file), name))
    candidates.append(os.path.join(root, name))
    for c in candidates:
        if os.path.isfile(c):
            rel = os.path.relpath(os.path.realpath(c), os.path.realpath(root))
            if not rel.startswith(".."):
                return rel
    return None


def check_file(root, path):
    rel = os.path.relpath(path, root)
    layer = layer_of(rel)
    if layer is None or LAYERS[layer] is None:
        return []
    allowed = LAYERS[layer]
    problems = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            bracket, name = m.group(1), m.group(2)
            target = project_target(root, path, bracket, name)
            if target is not None:
                target_layer = layer_of(target)
                if target_layer is not None and target_layer not in allowed:
                    problems.append(
                        f"{rel}:{lineno}: {layer}/ must not include {target_layer}/ "
                        f"(\"{name}\"); {layer}/ may include: {', '.join(allowed)}")
                continue
            if layer == "engine" and not (STD_HEADER.match(name) or ENGINE_EXTERNAL.match(name)):
                problems.append(
                    f"{rel}:{lineno}: engine/ is pure and may include only the C++ standard "
                    f"library, yaml-cpp and nlohmann-json, not <{name}>")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    root = os.path.realpath(parser.parse_args().root)
    problems = []
    for layer in LAYERS:
        top = os.path.join(root, layer)
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("build"))
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    path = os.path.join(dirpath, name)
                    # A nested layer (tools/kubesim inside tools/) is checked once, as itself.
                    if layer_of(os.path.relpath(path, root)) == layer:
                        problems.extend(check_file(root, path))
    for p in problems:
        print(p)
    if problems:
        print(f"check-layers: {len(problems)} include(s) cross a layer boundary", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
