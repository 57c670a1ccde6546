"""TLS on the cluster's internal links (issue 21, docs/cluster.md,
"TLS between nodes"): two one-process shards on 127.0.0.2 and .3 whose map
names only their tls-port (tls-cluster yes), certificates made here with
the openssl command (a CA, and one certificate per node naming its
address). Clients use each node's plain port; node to node is TLS only.

- a plain client's ADD of the other shard's URL is forwarded over TLS and
  stored at its owner; a MADD's links are spread to both shards;
- a node whose certificate is not signed by the CA is refused by the other
  node's link (the peer is verified): the forwarded command gets
  CLUSTERDOWN naming the certificate check, and nothing is stored.

Every process is stopped by its PID; every wait is bounded.

    python3 cluster_tls_test.py path/to/frontierd
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import redis
from redis.crc import key_slot

import cluster_harness
import servers
from cluster_harness import Cluster

HOSTS = ["127.0.0.2", "127.0.0.3"]
SPLIT = 8191  # shard a: 0-8191 (127.0.0.2), shard b: the rest (127.0.0.3)


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True,
                   timeout=60)


def make_ca(d, name):
    openssl("req", "-x509", "-new", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
            f"/CN={name}", "-keyout", f"{d}/{name}.key", "-out",
            f"{d}/{name}.crt")


def make_node_cert(d, name, ca):
    """A certificate for both nodes' addresses, for serving and as a
    client, signed by `ca`."""
    with open(f"{d}/{name}.ext", "w") as f:
        f.write("subjectAltName=" + ",".join(f"IP:{h}" for h in HOSTS) +
                "\nextendedKeyUsage=serverAuth,clientAuth\n")
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-subj", f"/CN={name}",
            "-keyout", f"{d}/{name}.key", "-out", f"{d}/{name}.csr")
    openssl("x509", "-req", "-in", f"{d}/{name}.csr", "-CA", f"{d}/{ca}.crt",
            "-CAkey", f"{d}/{ca}.key", "-CAcreateserial", "-days", "2",
            "-extfile", f"{d}/{name}.ext", "-out", f"{d}/{name}.crt")


def url_of_shard(shard, start=0):
    for i in range(start, start + 10_000):
        site = f"s{i}.example"
        if (key_slot(site.encode()) <= SPLIT) == (shard == 0):
            return f"http://{site}/p", site
    raise AssertionError("no URL found")


class TlsCluster(Cluster):
    """The two nodes; node i presents certs[i] (a name in the PKI dir)."""

    def __init__(self, pki, certs):
        self.pki = pki
        self.certs = certs
        self.tmp = tempfile.mkdtemp(prefix="frontierd-cluster-tls-")
        self.hosts = HOSTS
        self.ports = [servers.free_port(h) for h in HOSTS]
        self.tls_ports = [servers.free_port(h) for h in HOSTS]
        self.path = os.path.join(self.tmp, "cluster.conf")
        with open(self.path, "w") as f:
            f.write(f"epoch 1\nshard a 0-{SPLIT}\nshard b {SPLIT + 1}-16383\n"
                    f"node a {HOSTS[0]}:{self.tls_ports[0]}\n"
                    f"node b {HOSTS[1]}:{self.tls_ports[1]}\n")
        self.nodes = []

    def node_argv(self, i):
        binary = os.path.abspath(cluster_harness.BINARY)
        cert = os.path.join(self.pki, self.certs[i])
        return lambda s: [
            binary, "--port", str(s.port), "--bind", HOSTS[i], "--dir",
            os.path.join(s.dir, "data"), "--logfile",
            os.path.join(s.dir, "frontierd.log"), "--politeness-delay", "0",
            "--tls-port", str(self.tls_ports[i]), "--tls-cert-file",
            cert + ".crt", "--tls-key-file", cert + ".key",
            "--tls-ca-cert-file", os.path.join(self.pki, "ca.crt"),
            "--tls-cluster", "yes", "--cluster-config-file", self.path,
            "--cluster-forward-timeout", "2", "--cluster-failover-hold", "0"]


@unittest.skipIf(shutil.which("openssl") is None, "no openssl command")
class ClusterTlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pki = tempfile.mkdtemp(prefix="frontierd-cluster-pki-")
        make_ca(cls.pki, "ca")
        make_ca(cls.pki, "rogue-ca")
        make_node_cert(cls.pki, "node", "ca")
        make_node_cert(cls.pki, "rogue", "rogue-ca")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.pki, ignore_errors=True)

    def test_forwarding_and_madd_go_over_tls(self):
        with TlsCluster(self.pki, ["node", "node"]) as c:
            a, b = c.client(0), c.client(1)
            # The map names the nodes by their TLS ports.
            slots = a.execute_command("CLUSTER", "SLOTS")
            self.assertEqual(sorted(e[2][1] for e in slots),
                             sorted(c.tls_ports))
            remote, site = url_of_shard(1)
            self.assertEqual(a.execute_command("ADD", remote), 1)
            self.assertEqual(
                b.execute_command("SEEN", "{" + site + "}" + remote), 1)
            self.assertEqual(a.execute_command("SEEN", remote), 1)
            # A MADD through node b whose ref is on shard a (forwarded
            # there), with links of both shards (spread from there).
            ref, _ = url_of_shard(0, 100)
            self.assertEqual(b.execute_command("ADD", ref), 1)
            links = [url_of_shard(k % 2, 200 + 40 * k)[0] for k in range(10)]
            self.assertEqual(b.execute_command("MADD", ref, *links), [1] * 10)
            for k, link in enumerate(links):
                site = link.split("//")[1].split("/")[0]
                owner = c.client(k % 2)
                self.assertEqual(owner.execute_command(
                    "SEEN", "{" + site + "}" + link), 1, link)
            info = a.info("cluster")
            self.assertGreater(info["cluster_forwarded"], 0)
            self.assertEqual(info["cluster_forward_errors"], 0)

    def test_a_peer_with_a_certificate_of_another_ca_is_refused(self):
        with TlsCluster(self.pki, ["node", "rogue"]) as c:
            a, b = c.client(0), c.client(1)
            remote, site = url_of_shard(1)
            with self.assertRaises(redis.ResponseError) as caught:
                a.execute_command("ADD", remote)
            message = str(caught.exception)
            self.assertTrue(message.startswith("CLUSTERDOWN"), message)
            self.assertIn("certificate verify failed", message)
            self.assertIn("was not run", message)
            self.assertEqual(
                b.execute_command("SEEN", "{" + site + "}" + remote), 0)


if __name__ == "__main__":
    cluster_harness.BINARY = sys.argv.pop(1)
    unittest.main()
