#!/usr/bin/env python3
"""scripts/install-deps.sh runs apt-get only for missing packages (issue 25
§3): a restart of scripts/run.sh on a machine that has everything needs
neither root nor the dpkg lock, and a fresh machine still gets everything.

dpkg-query, apt-get and sudo are stand-ins on PATH, in a temporary
directory: dpkg-query answers "installed" for every package except those
in $MISSING; apt-get and sudo write their arguments to a log. Nothing is
installed. The first argument (the frontierd binary, as for every Python
test here) is not used.

    install_deps_test.py [frontierd]
"""
import os
import stat
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "scripts", "install-deps.sh")

DPKG_QUERY = """#!/bin/sh
pkg="$3"
for m in $MISSING; do
  if [ "$m" = "$pkg" ]; then echo "dpkg-query: no packages found" >&2; exit 1; fi
done
echo "install ok installed"
"""
LOGGER = """#!/bin/sh
echo "$(basename "$0") $*" >> "$CALLS"
if [ "$(basename "$0")" = sudo ]; then exec "$@"; fi
"""


class InstallDepsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.bin = os.path.join(self.tmp.name, "bin")
        os.mkdir(self.bin)
        for name, text in (("dpkg-query", DPKG_QUERY), ("apt-get", LOGGER),
                           ("sudo", LOGGER)):
            path = os.path.join(self.bin, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, stat.S_IRWXU)
        self.calls = os.path.join(self.tmp.name, "calls")

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self, missing, *args):
        env = dict(os.environ, PATH=self.bin + ":" + os.environ["PATH"],
                   MISSING=" ".join(missing), CALLS=self.calls)
        result = subprocess.run(["bash", SCRIPT, *args], env=env,
                                stdin=subprocess.DEVNULL,
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        if not os.path.exists(self.calls):
            return []
        with open(self.calls) as f:
            # sudo's own line is dropped: root or not, apt-get's count.
            return [line.split() for line in f.read().splitlines()
                    if line.startswith("apt-get")]

    def test_nothing_missing_runs_no_apt_get(self):
        self.assertEqual(self.run_script([]), [])
        self.assertEqual(self.run_script([], "--test"), [])

    def test_a_missing_package_is_installed_alone(self):
        calls = self.run_script(["libpsl-dev"])
        self.assertEqual(len(calls), 2, calls)
        self.assertEqual(calls[0][:2], ["apt-get", "update"])
        self.assertEqual(calls[1][:2], ["apt-get", "install"])
        self.assertEqual(calls[1][-1], "libpsl-dev")
        self.assertEqual([a for a in calls[1] if not a.startswith("-")],
                         ["apt-get", "install", "libpsl-dev"])

    def test_test_packages_only_with_test(self):
        self.assertEqual(self.run_script(["chromium"]), [])
        calls = self.run_script(["chromium", "cmake"], "--test")
        installs = [c for c in calls if c[1] == "install"]
        self.assertEqual([c[1] for c in calls].count("update"), 1, calls)
        self.assertEqual([c[-1] for c in installs], ["cmake", "chromium"])

    def test_a_fresh_machine_gets_everything(self):
        # Without dpkg-query's answer every package is missing.
        os.remove(os.path.join(self.bin, "dpkg-query"))
        with open(os.path.join(self.bin, "dpkg-query"), "w") as f:
            f.write("#!/bin/sh\nexit 1\n")
        os.chmod(os.path.join(self.bin, "dpkg-query"), stat.S_IRWXU)
        calls = self.run_script([], "--test")
        installed = {p for c in calls if c[1] == "install" for p in c[2:]
                     if not p.startswith("-")}
        for package in ("build-essential", "cmake", "libdb5.3++-dev",
                        "redis-tools", "chromium", "python3-redis"):
            self.assertIn(package, installed)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
