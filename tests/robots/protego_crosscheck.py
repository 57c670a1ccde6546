#!/usr/bin/env python3
"""Cross-checks robots/ (through robots_check) against python3-protego.

Usage: protego_crosscheck.py <path to robots_check>

Runs hand-written robots.txt files and a few hundred generated ones (fixed
seed, so every run checks the same files) through both, asking each
whether paths are allowed, and for the crawl-delay and the sitemaps.

Fails on any difference that is not in KNOWN_DIFFERENCES, and on any entry
of KNOWN_DIFFERENCES that no longer differs or where robots/ does not give
the answer docs/robots.md promises. Each entry names the section of
docs/robots.md ("Differences from protego") that explains it.

The generator only writes what both parsers are meant to read alike: it
leaves out the constructs listed in docs/robots.md where protego is not
RFC 9309 (a user-agent name inside another, product tokens with a version,
records between user-agent lines, escapes in queries, '$' in paths or after a query, a pattern starting with '*',
conflicting crawl-delays).
"""

import os
import random
import subprocess
import sys
import tempfile

from protego import Protego

AGENT = "frontierd"
SEED = 9309
GENERATED = 400

# --- Hand-written files ------------------------------------------------------

RFC_SIMPLE = """User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot
"""

RFC_PATHS = ["/", "/example/page.html", "/example/allowed.gif", "/example/x",
             "/publications/a", "/b.gif", "/b.gifx", "/other"]

# (name, body, agent, paths). Bodies are str, written as UTF-8.
HAND_WRITTEN = [
    ("rfc_simple_foobot", RFC_SIMPLE, "foobot", RFC_PATHS),
    ("rfc_simple_barbot", RFC_SIMPLE, "barbot", RFC_PATHS),
    ("rfc_simple_quxbot", RFC_SIMPLE, "quxbot", RFC_PATHS),
    ("rfc_simple_other", RFC_SIMPLE, "otherbot",
     ["/", "/example/x", "/publications/a", "/other", "/x/b.gif"]),
    ("reserved_characters",
     "User-agent: *\nDisallow: /a%3Ab\nDisallow: /c:d\nDisallow: /e%2Ff\n"
     "Allow: /g%3fh\nDisallow: /g\n", AGENT,
     ["/a:b", "/a%3Ab", "/c%3ad", "/c:d", "/e/f", "/e%2Ff", "/g?h", "/g%3Fh",
      "/x"]),
    ("rfc_longest_match",
     "User-Agent: foobot\nAllow: /example/page/\n"
     "Disallow: /example/page/disallowed.gif\n", "foobot",
     ["/example/page/", "/example/page/disallowed.gif", "/example/page/a"]),
    ("merged_groups",
     "user-agent: frontierd\ndisallow: /foo\ndisallow: /bar\n\n"
     "user-agent: otherbot\ndisallow: /\n"
     "user-agent: FrontierD\ndisallow: /baz\n", AGENT,
     ["/foo", "/bar/x", "/baz", "/qux", "/"]),
    ("specific_over_global",
     "User-agent: *\nDisallow: /\nUser-agent: frontierd\nAllow: /\n", AGENT,
     ["/", "/a"]),
    ("empty_specific_group",
     "User-agent: *\nDisallow: /\nUser-agent: frontierd\n", AGENT,
     ["/", "/a"]),
    ("longest_and_ties",
     "User-agent: *\nAllow: /p\nDisallow: /p\nDisallow: /x/\n"
     "Allow: /x/page.\nDisallow: /*.html\nAllow: /$\nDisallow: /\n", AGENT,
     ["/", "/p", "/pq", "/x/", "/x/page.html", "/x/y.html", "/index.html",
      "/q"]),
    ("wildcards",
     "User-agent: *\nDisallow: /*.php$\nDisallow: /private*/\n"
     "Disallow: /*?sessionid\nAllow: /private-ok/\nDisallow: /**a**b**$\n",
     AGENT,
     ["/a.php", "/a.php?x", "/dir/b.php", "/private1/x", "/private/x",
      "/privatex", "/private-ok/x", "/x?sessionid=1", "/x?y=1&sessionid",
      "/xaxxbb", "/xaxxbc"]),
    ("percent_encoding",
     "User-agent: *\nDisallow: /%62%61%7A\nDisallow: /\u30c4\n"
     "Disallow: /%e3%83%85\nDisallow: /~joe\nAllow: /%7Ejoe/pub\n", AGENT,
     ["/baz", "/%62az", "/%E3%83%84", "/\u30c4", "/%e3%83%85x", "/\u30c5",
      "/~joe/a", "/%7ejoe/a", "/~joe/pub/x", "/other"]),
    ("line_endings_crlf",
     "User-agent: frontierd\r\nDisallow: /a\r\n\r\nAllow: /a/b\r\n", AGENT,
     ["/a", "/a/b", "/a/c", "/b"]),
    ("line_endings_cr",
     "User-agent: frontierd\rDisallow: /a\rAllow: /a/b", AGENT,
     ["/a", "/a/b", "/a/c", "/b"]),
    ("missing_colon_and_typos",
     "user agent frontierd\ndisallow /a\nDISSALLOW: /b\nuseragent: otherbot\n"
     "disalow: /c\n", AGENT, ["/a", "/b", "/c", "/d"]),
    ("comments_and_blank_values",
     "# a comment\nUser-agent: * # everyone\nDisallow: # nothing\n"
     "Allow:\nDisallow: /x # x\n", AGENT, ["/", "/x", "/x#y", "/y"]),
    ("rules_before_any_group",
     "Disallow: /\nAllow: /a\nUser-agent: *\nDisallow: /b\n", AGENT,
     ["/", "/a", "/b"]),
    ("no_leading_slash",
     "User-agent: *\nDisallow: private\nAllow: private/open\n", AGENT,
     ["/private", "/private/open", "/privateer", "/open"]),
    ("crawl_delay_and_sitemaps",
     "Sitemap: https://example.com/s1.xml\nUser-agent: *\nDisallow: /x\n"
     "Crawl-delay: 10\nUser-agent: frontierd\nDisallow: /y\n"
     "Crawl-delay: 2.5\nSitemap: https://example.com/s2.xml\n", AGENT,
     ["/x", "/y"]),
    ("empty_file", "", AGENT, ["/", "/a"]),
    # --- Known differences (docs/robots.md, "Differences from protego") ---
    ("robots_txt_always_allowed", "User-agent: *\nDisallow: /\n", AGENT,
     ["/robots.txt", "/"]),
    ("product_token_with_version",
     "User-agent: frontierd/1.0\nDisallow: /\n", AGENT, ["/"]),
    ("agent_name_inside_ours", "User-agent: front\nDisallow: /\n", AGENT,
     ["/"]),
    ("sitemap_between_agents",
     "User-agent: otherbot\nSitemap: https://example.com/s.xml\n"
     "User-agent: frontierd\nDisallow: /\n", "otherbot", ["/"]),
    ("crawl_delay_between_agents",
     "User-agent: otherbot\nCrawl-delay: 5\nUser-agent: frontierd\n"
     "Disallow: /x\n", AGENT, ["/x"]),
    ("delay_only_group_then_star_rules",
     "User-agent: frontierd\nCrawl-delay: 1\nUser-agent: *\n"
     "Disallow: /admin\n", AGENT, ["/admin", "/"]),
    ("byte_order_mark", "\ufeffUser-agent: *\nDisallow: /\n", AGENT, ["/"]),
    ("other_line_breaks", "User-agent: *\x0cDisallow: /\n", AGENT, ["/"]),
    ("escapes_in_query", "User-agent: *\nDisallow: /p?q=%41\n", AGENT,
     ["/p?q=A", "/p?q=%41"]),
    ("dollar_in_path", "User-agent: *\nDisallow: /a$\n", AGENT,
     ["/a", "/a$x", "/a%24x"]),
    ("crawl_delay_merged",
     "User-agent: frontierd\nDisallow: /x\nCrawl-delay: 5\n"
     "User-agent: frontierd\nDisallow: /y\nCrawl-delay: 2\n", AGENT, ["/x"]),
    ("crawl_delay_negative",
     "User-agent: *\nDisallow: /x\nCrawl-delay: -1\n", AGENT, ["/x"]),
    ("crawl_delay_exponent",
     "User-agent: *\nDisallow: /x\nCrawl-delay: 1e1\n", AGENT, ["/x"]),
    ("leading_star_length", "User-agent: *\nAllow: /a.gi\nDisallow: *.gif\n",
     AGENT, ["/a.gif", "/b.gif"]),
    ("leading_star_slash", "User-agent: *\nDisallow: */a\n", AGENT,
     ["/a", "/x/a", "/b"]),
    ("dollar_after_query", "User-agent: *\nDisallow: /p?q=1$\n", AGENT,
     ["/p?q=1", "/p?q=12"]),
]

# (case, item) -> (what robots/ answers, the docs/robots.md section).
# item is a path, "crawl-delay" or "sitemaps".
KNOWN_DIFFERENCES = {
    ("robots_txt_always_allowed", "/robots.txt"): ("1", "robots.txt"),
    ("product_token_with_version", "/"): ("0", "product token"),
    ("agent_name_inside_ours", "/"): ("1", "product token"),
    ("sitemap_between_agents", "/"): ("0", "other records"),
    ("delay_only_group_then_star_rules", "/admin"): ("0", "other records"),
    ("byte_order_mark", "/"): ("0", "byte order mark"),
    ("other_line_breaks", "/"): ("1", "line breaks"),
    ("escapes_in_query", "/p?q=A"): ("0", "queries"),
    ("dollar_in_path", "/a$x"): ("1", "dollar"),
    ("dollar_in_path", "/a%24x"): ("1", "dollar"),
    ("crawl_delay_merged", "crawl-delay"): ("5.000", "crawl-delay"),
    ("crawl_delay_negative", "crawl-delay"): ("none", "crawl-delay"),
    ("crawl_delay_exponent", "crawl-delay"): ("none", "crawl-delay"),
    ("leading_star_length", "/a.gif"): ("1", "leading star"),
    ("leading_star_slash", "/a"): ("0", "leading star"),
    ("dollar_after_query", "/p?q=1"): ("0", "dollar"),
}

# --- Crawl-delay shapes (issue 18 §1) -----------------------------------------
# The common real-world shapes of a file with a '*' group and a group for
# the crawler, each with a Crawl-delay: either order, each group with and
# without a rule, blank lines between them or none, the crawler's delay
# shorter or longer than the other one; and another crawler's group in
# place of ours. Both must give the crawler the delay of its own group (or
# of '*' when no group names it) and the same answers for the paths, with
# one documented exception (below).

SHAPE_PATHS = ["/", "/a", "/x", "/admin"]


def delay_shapes():
    """(name, body, exception path or None) for each shape."""
    cases = []
    for first, second in (("*", AGENT), (AGENT, "*"), ("otherbot", "*"),
                          ("*", "otherbot")):
        for rules in ((False, False), (True, False), (False, True),
                      (True, True)):
            for blank in (True, False):
                for delays in (("30", "1"), ("1", "30")):
                    lines = []
                    for group, (name, delay, path) in enumerate(
                            ((first, delays[0], "/a"),
                             (second, delays[1], "/x"))):
                        lines.append("User-agent: " + name)
                        lines.append("Crawl-delay: " + delay)
                        if rules[group]:
                            lines.append("Disallow: " + path)
                        if blank:
                            lines.append("")
                    body = "\n".join(lines) + "\n"
                    label = "shape_%s_%s_%d%d_%s_%s" % (
                        first.replace("*", "star"), second.replace("*", "star"),
                        rules[0], rules[1], "blank" if blank else "tight",
                        "-".join(delays))
                    # The one shape read differently: the group that
                    # applies to the crawler comes first, with only a
                    # Crawl-delay, and the next group has a rule. RFC 9309
                    # makes both user-agent lines one group (a Crawl-delay
                    # must not change how rules are read, §2.2.4), so that
                    # rule binds the crawler too; protego gives the first
                    # agent an empty group of its own. robots/ keeps the
                    # reading that blocks more (docs/robots.md, "other
                    # records").
                    ours_first = first == AGENT or (first == "*" and
                                                    second != AGENT)
                    exception = ("/x" if ours_first and not rules[0]
                                 and rules[1] else None)
                    cases.append((label, body, exception))
    return cases


# --- Generated files ---------------------------------------------------------

GROUP_NAMES = ["frontierd", "FrontierD", "FRONTIERD", "*", "otherbot",
               "googlebot", "Bingbot"]
UA_KEYS = ["User-agent", "user-agent", "USER-AGENT", "User-Agent", "useragent",
           "user agent"]
RULE_KEYS = [("Allow", True), ("allow", True), ("ALLOW", True),
             ("Disallow", False), ("disallow", False), ("DISALLOW", False),
             ("disalow", False), ("Dissallow", False)]
SEGMENTS = ["a", "b", "ab", "page", "x.html", "img.gif", "%61", "%62c",
            "%c3%a4", "\u00e4", "~user", "a-b_c.d", "index.php", "Z", "x:y",
            "x%3Ay", "%40at", "@at", "a%2Fb", "a=b&c"]
QUERY_VALUES = ["1", "x", "a", "page"]
DELAYS = ["0", "1", "2.5", "10", "0.25", "30"]


def random_path_body(rng, allow_star):
    parts = []
    for _ in range(rng.randint(0, 3)):
        if allow_star and rng.random() < 0.2:
            parts.append("*")
        parts.append(rng.choice(SEGMENTS))
    text = "/" + "/".join(parts)
    if rng.random() < 0.15:
        text += "/"
    if allow_star and rng.random() < 0.15:
        text += "*"
    if rng.random() < 0.15:
        text += "?q=" + rng.choice(QUERY_VALUES)
    return text.replace("//", "/")


def random_pattern(rng):
    pattern = random_path_body(rng, allow_star=True)
    if rng.random() < 0.05 and len(pattern) > 1 and pattern[1] != "*":
        pattern = pattern[1:]  # no leading slash (but no leading '*')
    if rng.random() < 0.1 and "?" not in pattern:
        pattern += "$"
    return pattern


def path_from_pattern(rng, pattern):
    out = ""
    for ch in pattern:
        if ch == "*":
            out += rng.choice(["", rng.choice(SEGMENTS), "q/" + rng.choice(SEGMENTS)])
        elif ch != "$":
            out += ch
    if not out.startswith("/"):
        out = "/" + out
    while "//" in out:
        out = out.replace("//", "/")
    if rng.random() < 0.3:
        out += rng.choice(["", "x", "/more", "?q=1"])
    return out


def generate(rng):
    eol = rng.choice(["\n", "\n", "\r\n", "\r"])
    lines = []
    patterns = []
    if rng.random() < 0.3:
        lines.append("Sitemap: https://example.com/s%d.xml" % rng.randint(1, 9))
    if rng.random() < 0.1:
        lines.append("Disallow: /before-any-group")
    delayed = set()
    for _ in range(rng.randint(0, 5)):
        names = rng.sample(GROUP_NAMES, rng.randint(1, 2))
        for name in names:
            lines.append("%s: %s" % (rng.choice(UA_KEYS), name))
        if rng.random() < 0.2:
            lines.append(rng.choice(["", "# comment"]))
        n_rules = rng.randint(0, 6)
        for i in range(n_rules):
            key, _ = rng.choice(RULE_KEYS)
            if rng.random() < 0.08:
                lines.append("%s:" % key)
                continue
            pattern = random_pattern(rng)
            patterns.append(pattern)
            sep = rng.choice([": ", ":", " : ", ":   "])
            line = key + sep + pattern
            if rng.random() < 0.1:
                line += " # note"
            lines.append(line)
            lowered = {n.lower() for n in names}
            if i == 0 and not (lowered & delayed) and rng.random() < 0.3:
                lines.append("Crawl-delay: " + rng.choice(DELAYS))
                delayed |= lowered
    if rng.random() < 0.3:
        lines.append("Sitemap: https://example.com/end.xml")
    body = eol.join(lines) + (eol if rng.random() < 0.8 else "")

    paths = ["/"]
    for _ in range(rng.randint(3, 8)):
        paths.append(random_path_body(rng, allow_star=False))
    for pattern in patterns:
        for _ in range(2):
            paths.append(path_from_pattern(rng, pattern))
    return body, sorted(set(paths))


# --- Running both ------------------------------------------------------------


def ours(check, workdir, body, agent, paths):
    robots = os.path.join(workdir, "robots.txt")
    listing = os.path.join(workdir, "paths.txt")
    with open(robots, "wb") as f:
        f.write(body.encode("utf-8"))
    with open(listing, "wb") as f:
        f.write("".join(p + "\n" for p in paths).encode("utf-8"))
    out = subprocess.run([check, robots, agent, listing], check=True,
                         stdout=subprocess.PIPE, timeout=60).stdout.decode("utf-8")
    answers = {}
    sitemaps = []
    lines = out.splitlines()
    for path, line in zip(paths, lines):
        flag, _, echoed = line.partition(" ")
        if echoed != path:
            raise RuntimeError("robots_check echoed %r for %r" % (echoed, path))
        answers[path] = flag
    for line in lines[len(paths):]:
        key, _, value = line.partition(" ")
        if key == "crawl-delay":
            answers["crawl-delay"] = value
        elif key == "sitemap":
            sitemaps.append(value)
    answers["sitemaps"] = "\n".join(sitemaps)
    return answers


def theirs(body, agent, paths):
    parser = Protego.parse(body)
    answers = {}
    for path in paths:
        allowed = parser.can_fetch("http://example.com" + path, agent)
        answers[path] = "1" if allowed else "0"
    delay = parser.crawl_delay(agent)
    answers["crawl-delay"] = "none" if delay is None else "%.3f" % delay
    answers["sitemaps"] = "\n".join(parser.sitemaps)
    return answers


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    check = sys.argv[1]
    rng = random.Random(SEED)
    cases = list(HAND_WRITTEN)
    for i in range(GENERATED):
        body, paths = generate(rng)
        cases.append(("generated_%03d" % i, body, AGENT, paths))

    failures = []
    seen_known = set()
    compared = 0
    shapes = delay_shapes()
    with tempfile.TemporaryDirectory() as workdir:
        for name, body, agent, paths in cases:
            a = ours(check, workdir, body, agent, paths)
            b = theirs(body, agent, paths)
            for item in a:
                compared += 1
                key = (name, item)
                if key in KNOWN_DIFFERENCES:
                    expected, _ = KNOWN_DIFFERENCES[key]
                    seen_known.add(key)
                    if a[item] == b[item]:
                        failures.append("%s %r: listed as a difference, but both "
                                        "answer %r" % (name, item, a[item]))
                    if a[item] != expected:
                        failures.append("%s %r: robots/ answers %r, docs say %r"
                                        % (name, item, a[item], expected))
                elif a[item] != b[item]:
                    failures.append("%s %r: robots/ %r, protego %r\n--- body:\n%s"
                                    % (name, item, a[item], b[item], body))
        for name, body, exception in shapes:
            a = ours(check, workdir, body, AGENT, SHAPE_PATHS)
            b = theirs(body, AGENT, SHAPE_PATHS)
            for item in a:
                compared += 1
                if item == exception:
                    if (a[item], b[item]) != ("0", "1"):
                        failures.append("%s %r: robots/ %r, protego %r; "
                                        "docs say '0' and '1'\n--- body:\n%s"
                                        % (name, item, a[item], b[item], body))
                elif a[item] != b[item]:
                    failures.append("%s %r: robots/ %r, protego %r\n--- body:\n%s"
                                    % (name, item, a[item], b[item], body))
    for key in set(KNOWN_DIFFERENCES) - seen_known:
        failures.append("listed difference %r was never checked" % (key,))

    print("protego cross-check: %d files (%d hand-written, %d crawl-delay "
          "shapes, %d generated), %d answers compared, %d known differences"
          % (len(cases) + len(shapes), len(HAND_WRITTEN), len(shapes),
             GENERATED, compared, len(KNOWN_DIFFERENCES)))
    for failure in failures[:30]:
        print("FAIL:", failure)
    if failures:
        print("%d failures" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
