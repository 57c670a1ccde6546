"""docker/compose-replication.yaml, the group of three (issue 20,
docs/replication.md, "A group of three with compose"), read as compose
reads it (YAML with its merge keys) and checked for what a group needs:
three sites of one image, one group creator, each site's repl-listen on its
own fixed address of the private network and the others as its peers, the
replication port never published, RESP ports published on loopback only,
a volume each, and every directive one frontierd knows (asked of a running
frontierd with CONFIG GET). No container is started.

    python3 compose_test.py path/to/frontierd
"""
import ipaddress
import os
import sys
import unittest

import redis
import yaml

import servers

BINARY = None
COMPOSE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "docker", "compose-replication.yaml")


def options(command):
    """{"--name": [values]} of a frontierd command line."""
    out, name = {}, None
    for arg in command[2:]:  # frontierd, its config file
        if arg.startswith("--"):
            name = arg
            out[name] = []
        else:
            out[name].append(arg)
    return out


class ComposeTest(unittest.TestCase):
    def test_the_compose_file_runs_a_group_of_three(self):
        with open(COMPOSE) as f:
            compose = yaml.safe_load(f)
        services = compose["services"]
        self.assertEqual(len(services), 3)
        subnet = ipaddress.ip_network(
            compose["networks"]["frontierd-group"]["ipam"]["config"][0]
            ["subnet"])
        self.assertTrue(subnet.is_private)
        listens, creators, published, volumes = {}, [], [], []
        for name, svc in services.items():
            self.assertEqual(svc["image"], "frontierd:latest", name)
            self.assertEqual(svc["build"]["dockerfile"], "docker/Dockerfile")
            self.assertEqual(svc["command"][:2],
                             ["frontierd", "/etc/frontierd/frontierd.conf"])
            opts = options(svc["command"])
            self.assertEqual(opts["--replication"], ["yes"], name)
            [listen] = opts["--repl-listen"]
            host, port = listen.rsplit(":", 1)
            # The replication port: the site's own private address, never
            # a wildcard, and not published.
            self.assertEqual(
                host, svc["networks"]["frontierd-group"]["ipv4_address"])
            self.assertIn(ipaddress.ip_address(host), subnet)
            listens[name] = listen
            if opts.get("--repl-group-creator") == ["yes"]:
                creators.append(name)
            for mapping in svc["ports"]:
                bind, outside, inside = mapping.split(":")
                self.assertEqual(bind, "127.0.0.1")
                self.assertNotEqual(inside, port)
                published.append(outside)
            volumes += [v.split(":")[0] for v in svc["volumes"]]
        self.assertEqual(len(creators), 1, creators)
        self.assertEqual(len(set(listens.values())), 3)
        for name, svc in services.items():
            peers = options(svc["command"])["--repl-peers"]
            self.assertEqual(sorted(peers), sorted(
                a for n, a in listens.items() if n != name), name)
        self.assertEqual(len(set(published)), 3)
        self.assertEqual(sorted(set(volumes)), sorted(compose["volumes"]))
        self.assertEqual(len(set(volumes)), 3)

        # Every directive on the command lines is one frontierd knows.
        names = {n for svc in services.values()
                 for n in options(svc["command"])}
        with servers.frontierd(BINARY) as s:
            client = redis.Redis(port=s.port, socket_timeout=10)
            for n in sorted(names):
                self.assertTrue(client.config_get(n[2:]), n)


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main()
