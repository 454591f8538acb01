#!/usr/bin/env python3
"""Tests of scripts/check-layers.py: it passes the repository and fails a deliberately wrong
include in a scratch tree, naming the file, the line and the rule."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.realpath(os.path.join(HERE, "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "check-layers.py")


def run(root):
    return subprocess.run([sys.executable, SCRIPT, "--root", root], capture_output=True,
                          text=True, timeout=120)


class ScratchTree:
    """A minimal repository layout with one header per layer."""

    def __init__(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        for layer in ["engine", "cluster-clients", "store", "actors", "api", "tools/fleetwave",
                      "tools/kubesim", "tests/engine"]:
            self.write(f"{layer}/base.h", "#pragma once\n#include <vector>\n")

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def close(self):
        self.dir.cleanup()


class CheckLayersTest(unittest.TestCase):
    def setUp(self):
        self.tree = ScratchTree()

    def tearDown(self):
        self.tree.close()

    def test_repository_is_clean(self):
        result = run(REPO)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_clean_scratch_tree_passes(self):
        self.tree.write("cluster-clients/client.cc", '#include "engine/base.h"\n')
        self.tree.write("actors/a.cc", '#include "store/base.h"\n#include "engine/base.h"\n')
        self.tree.write("tests/engine/x_test.cc", '#include "tools/kubesim/base.h"\n')
        result = run(self.tree.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_engine_including_cluster_clients_fails(self):
        self.tree.write("engine/plan.cc", '#include <string>\n\n#include "cluster-clients/base.h"\n')
        result = run(self.tree.root)
        self.assertEqual(result.returncode, 1)
        self.assertIn('engine/plan.cc:3: engine/ must not include cluster-clients/ '
                      '("cluster-clients/base.h"); engine/ may include: engine', result.stdout)

    def test_engine_including_a_posix_header_fails(self):
        self.tree.write("engine/clock.cc", "#include <unistd.h>\n")
        result = run(self.tree.root)
        self.assertEqual(result.returncode, 1)
        self.assertIn("engine/clock.cc:1: engine/ is pure and may include only the C++ standard "
                      "library, yaml-cpp and nlohmann-json, not <unistd.h>", result.stdout)

    def test_product_including_kubesim_fails(self):
        self.tree.write("cluster-clients/sim.cc", '#include "tools/kubesim/base.h"\n')
        result = run(self.tree.root)
        self.assertEqual(result.returncode, 1)
        self.assertIn("cluster-clients/sim.cc:1: cluster-clients/ must not include tools/kubesim/",
                      result.stdout)

    def test_only_the_binary_uses_actors(self):
        self.tree.write("store/s.cc", '#include "actors/base.h"\n')
        self.tree.write("tools/fleetwave/run.cc", '#include "actors/base.h"\n')
        result = run(self.tree.root)
        self.assertEqual(result.returncode, 1)
        self.assertIn("store/s.cc:1: store/ must not include actors/", result.stdout)
        self.assertNotIn("tools/fleetwave/run.cc", result.stdout)

    def test_actors_must_not_include_the_http_layer(self):
        self.tree.write("actors/coordinator.cc", '#include "api/base.h"\n')
        self.tree.write("api/server.cc", '#include "actors/base.h"\n')
        self.tree.write("tools/fleetwave/run.cc", '#include "api/base.h"\n')
        result = run(self.tree.root)
        self.assertEqual(result.returncode, 1)
        self.assertIn("actors/coordinator.cc:1: actors/ must not include api/", result.stdout)
        self.assertNotIn("api/server.cc", result.stdout)
        self.assertNotIn("tools/fleetwave/run.cc", result.stdout)

    def test_relative_include_is_resolved(self):
        self.tree.write("engine/rel.cc", '#include "../cluster-clients/base.h"\n')
        result = run(self.tree.root)
        self.assertEqual(result.returncode, 1)
        self.assertIn("engine/rel.cc:1: engine/ must not include cluster-clients/", result.stdout)


if __name__ == "__main__":
    unittest.main()
