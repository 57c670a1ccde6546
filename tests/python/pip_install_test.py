"""The Python client and the Scrapy scheduler install with pip from the
repository (issue 24), with no package index, into a virtual environment
that sees Debian's redis-py and Scrapy; installed, they work against a real
frontierd from outside the repository.

    python3 pip_install_test.py path/to/frontierd
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import servers

FRONTIERD = None
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class PipInstallTest(unittest.TestCase):

    def test_install_from_the_repository_and_use(self):
        with tempfile.TemporaryDirectory(prefix="frontierd-pip-") as tmp:
            venv = os.path.join(tmp, "venv")
            subprocess.run([sys.executable, "-m", "venv",
                            "--system-site-packages", venv], check=True,
                           timeout=120)
            python = os.path.join(venv, "bin", "python")
            # Copies, so that the build leaves nothing in the work tree.
            sources = []
            for package in ("python", "scrapy"):
                src = os.path.join(tmp, package)
                shutil.copytree(os.path.join(REPO, "clients", package), src)
                sources.append(src)
            out = subprocess.run(
                [python, "-m", "pip", "install", "--no-build-isolation",
                 "--no-index", *sources],
                capture_output=True, text=True, timeout=300)
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
            script = (
                "import sys, frontierd, scrapy_frontierd\n"
                "assert frontierd.__file__.startswith(sys.prefix), "
                "frontierd.__file__\n"
                "assert scrapy_frontierd.__file__.startswith(sys.prefix)\n"
                "c = frontierd.Frontier.from_url(sys.argv[1])\n"
                "print(c.add('http://pip.test/a'), c.pop())\n")
            with servers.frontierd(FRONTIERD) as server:
                run = subprocess.run(
                    [python, "-c", script,
                     "redis://127.0.0.1:%d" % server.port],
                    capture_output=True, text=True, timeout=60, cwd=tmp)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            self.assertEqual(run.stdout.split(), ["1", "http://pip.test/a"])


if __name__ == "__main__":
    FRONTIERD = sys.argv.pop(1)
    unittest.main()
