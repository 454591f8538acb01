"""fleetwave's install layout and .deb (cmake/packaging.cmake, systemd/debian/), judged from this
build tree:
  - `DESTDIR=... cmake --install` lays out the binary, the unit, sysusers/tmpfiles, the example
    configuration, the alert rules (when examples/prometheus has them) and the docs;
  - `cpack -G DEB` builds a .deb whose Depends name the package of every shared library the
    binary needs (dpkg-shlibdeps) plus systemd, whose maintainer scripts are executable and do
    what the unit needs, and whose conffiles keep the operator's configuration;
  - `dpkg -x` into a scratch root: every file is there, the unit verifies there, and the
    package's own sysusers/tmpfiles files create the user and directories in that root.
"""
import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest

SOURCE_DIR = os.environ["FLEETWAVE_SOURCE_DIR"]
BUILD_DIR = os.environ["FLEETWAVE_BUILD_DIR"]
FLEETWAVE = os.environ["FLEETWAVE"]
CMAKE = os.environ.get("CMAKE", "cmake")
CPACK = os.environ.get("CPACK", "cpack")
VERSION = os.environ.get("FLEETWAVE_VERSION", "")

# (path under the root, is it executable)
LAYOUT = [
    ("usr/bin/fleetwave", True),
    ("usr/lib/systemd/system/fleetwave.service", False),
    ("usr/lib/sysusers.d/fleetwave.conf", False),
    ("usr/lib/tmpfiles.d/fleetwave.conf", False),
    ("etc/fleetwave/fleetwave.yaml", False),
    ("usr/share/doc/fleetwave/examples/guestbook/fleetwave.yaml", False),
]
ALERTS = "usr/share/fleetwave/prometheus/alerts.yaml"
HAVE_ALERTS = os.path.exists(os.path.join(SOURCE_DIR, "examples", "prometheus", "alerts.yaml"))


def run(args, **kwargs):
    out = subprocess.run(args, capture_output=True, text=True, **kwargs)
    return out


def needed_packages(binary):
    """The Debian package of every shared library `binary` needs (NEEDED entries)."""
    out = run(["ldd", binary])
    packages = {}
    for line in out.stdout.splitlines():
        m = re.match(r"\s*(\S+) => (/\S+)", line)
        if not m:
            continue
        soname, path = m.groups()
        real = os.path.realpath(path)
        owner = None
        for candidate in (path, real, "/usr" + path if not path.startswith("/usr") else path,
                          "/usr" + real if not real.startswith("/usr") else real):
            found = run(["dpkg", "-S", candidate])
            if found.returncode == 0:
                owner = found.stdout.split(":")[0]
                break
        if owner:
            packages[soname] = owner
    readelf = run(["readelf", "-d", binary]).stdout
    direct = set(re.findall(r"\(NEEDED\)\s+Shared library: \[(\S+)\]", readelf))
    return {s: p for s, p in packages.items() if s in direct}


def depends_names(field):
    """'libc6 (>= 2.34), libcurl4 (>= 7.16.2) | x, systemd' -> {'libc6', 'libcurl4', 'x', ...}."""
    names = set()
    for alternative in re.split(r"[,|]", field):
        name = alternative.strip().split(" ")[0].split(":")[0]
        if name:
            names.add(name)
    return names


class PackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="fleetwave-package-")
        out_dir = os.path.join(cls.tmp.name, "out")
        os.mkdir(out_dir)
        cls.cpack = run([CPACK, "-G", "DEB", "-B", out_dir,
                         "--config", os.path.join(BUILD_DIR, "CPackConfig.cmake")],
                        cwd=BUILD_DIR)
        debs = glob.glob(os.path.join(out_dir, "*.deb"))
        cls.deb = debs[0] if len(debs) == 1 else None

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.assertIsNotNone(self.deb, "cpack made no single .deb: %s\n%s"
                             % (self.cpack.stdout, self.cpack.stderr))

    def assert_layout(self, root):
        expected = LAYOUT + ([(ALERTS, False)] if HAVE_ALERTS else [])
        for path, executable in expected:
            with self.subTest(path=path):
                full = os.path.join(root, path)
                self.assertTrue(os.path.isfile(full), full)
                self.assertEqual(os.access(full, os.X_OK), executable, full)
        if not HAVE_ALERTS:
            self.assertFalse(os.path.exists(os.path.join(root, ALERTS)))

    def test_cmake_install_layout(self):
        staged = os.path.join(self.tmp.name, "staged")
        out = run([CMAKE, "--install", BUILD_DIR, "--prefix", "/usr"],
                  env=dict(os.environ, DESTDIR=staged))
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assert_layout(staged)
        with open(os.path.join(staged, "usr/lib/systemd/system/fleetwave.service")) as f, \
                open(os.path.join(SOURCE_DIR, "systemd/fleetwave.service")) as g:
            self.assertEqual(f.read(), g.read())

    def test_control_fields(self):
        info = run(["dpkg-deb", "-f", self.deb, "Package", "Version", "Architecture", "Depends"])
        self.assertEqual(info.returncode, 0, info.stderr)
        fields = dict(line.split(": ", 1) for line in info.stdout.splitlines())
        self.assertEqual(fields["Package"], "fleetwave")
        if VERSION:
            self.assertEqual(fields["Version"], VERSION)
        self.assertEqual(fields["Architecture"], run(["dpkg", "--print-architecture"])
                         .stdout.strip())
        depends = depends_names(fields["Depends"])
        self.assertIn("systemd", depends)
        needed = needed_packages(FLEETWAVE)
        # The libraries issue 15 names, whenever the binary links them.
        for soname_prefix in ("libcaf_core", "libcurl", "libyaml-cpp", "libsqlite3", "libgit2",
                              "libsystemd", "libssl", "libprometheus-cpp"):
            for soname, package in needed.items():
                if soname.startswith(soname_prefix):
                    with self.subTest(soname=soname):
                        self.assertIn(package, depends)
        self.assertTrue(any(s.startswith("libsystemd") for s in needed), needed)
        for soname, package in needed.items():
            with self.subTest(soname=soname):
                self.assertIn(package, depends, fields["Depends"])

    def test_maintainer_scripts_and_conffiles(self):
        control = os.path.join(self.tmp.name, "control")
        out = run(["dpkg-deb", "-e", self.deb, control])
        self.assertEqual(out.returncode, 0, out.stderr)
        for script in ("postinst", "prerm", "postrm"):
            with self.subTest(script=script):
                path = os.path.join(control, script)
                self.assertTrue(os.access(path, os.X_OK), path)
                self.assertEqual(run(["sh", "-n", path]).returncode, 0)
        with open(os.path.join(control, "postinst")) as f:
            postinst = f.read()
        self.assertIn("systemd-sysusers fleetwave.conf", postinst)
        self.assertIn("systemd-tmpfiles --create fleetwave.conf", postinst)
        self.assertIn("daemon-reload", postinst)
        with open(os.path.join(control, "prerm")) as f:
            self.assertIn("systemctl stop fleetwave.service", f.read())
        with open(os.path.join(control, "postrm")) as f:
            self.assertIn("systemctl disable fleetwave.service", f.read())
        with open(os.path.join(control, "conffiles")) as f:
            self.assertEqual(f.read().split(), ["/etc/fleetwave/fleetwave.yaml"])

    def test_extracted_into_a_scratch_root(self):
        root = os.path.join(self.tmp.name, "root")
        out = run(["dpkg", "-x", self.deb, root])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assert_layout(root)
        # The unit verifies there, every path resolved inside the root. The root gets what the
        # package's dependencies put on every Debian 12 system and the unit refers to: merged
        # /usr (bin, lib), kill (ExecReload) and systemd's targets (the implicit dependencies).
        os.symlink("usr/bin", os.path.join(root, "bin"))
        os.symlink("usr/lib", os.path.join(root, "lib"))
        shutil.copy2("/usr/bin/kill", os.path.join(root, "usr/bin/kill"))
        for target in glob.glob("/usr/lib/systemd/system/*.target"):
            dest = os.path.join(root, "usr/lib/systemd/system", os.path.basename(target))
            if os.path.islink(target):
                os.symlink(os.readlink(target), dest)
            else:
                shutil.copy2(target, dest)
        unit = root + "/usr/lib/systemd/system/fleetwave.service"
        out = run(["systemd-analyze", "verify", "--root=" + root, unit], cwd=root)
        self.assertEqual((out.returncode, out.stdout, out.stderr), (0, "", ""))
        # ... and the check is real: without the packaged binary, ExecStart does not resolve.
        binary = os.path.join(root, "usr/bin/fleetwave")
        os.rename(binary, binary + ".away")
        out = run(["systemd-analyze", "verify", "--root=" + root, unit], cwd=root)
        os.rename(binary + ".away", binary)
        self.assertIn("/usr/bin/fleetwave", out.stdout + out.stderr)
        # The packaged binary runs (shared libraries found, stripped or not).
        out = run([os.path.join(root, "usr/bin/fleetwave"), "run", "--config",
                   os.path.join(root, "nonexistent.yaml")])
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn("nothing started", out.stderr)
        # What postinst does, applied to the root from the package's own files.
        os.makedirs(os.path.join(root, "etc"), exist_ok=True)
        out = run(["systemd-sysusers", "--root=" + root])
        self.assertEqual(out.returncode, 0, out.stderr)
        out = run(["systemd-tmpfiles", "--create", "--root=" + root])
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(os.path.join(root, "etc/passwd")) as f:
            self.assertRegex(f.read(), r"(?m)^fleetwave:x:\d+:\d+:[^:]*:/var/lib/fleetwave:")
        self.assertTrue(os.path.isdir(os.path.join(root, "var/lib/fleetwave")))


if __name__ == "__main__":
    unittest.main()
