// Differential test: frontierd's URL normalisation against whatwg-url, the
// reference implementation of the WHATWG URL Standard (the URL parser
// browsers follow).
//
//   node url_reference_test.js <path to url_normalise>
//
// Every input goes to both. The reference's href, with frontierd's
// documented extra rules applied (docs/commands.md, "Normalisation":
// fragment dropped, escapes normalised, bytes RFC 3986 forbids escaped),
// must equal frontierd's output byte for byte. Failures must agree:
// frontierd refuses what the reference cannot parse, and refuses what the
// reference accepts only under a documented rule (another scheme, port 0,
// '"' '`' '{' '}' in a host, an IDN label IDNA2008 forbids). Exits 1 and
// prints every differing input otherwise; requires whatwg-url installed
// beside this file (npm install --no-package-lock, scripts/test.sh does).
"use strict";

const { spawnSync } = require("node:child_process");
const path = require("node:path");
let URL;
try {
  ({ URL } = require(path.join(__dirname, "node_modules", "whatwg-url")));
} catch (e) {
  console.error(`whatwg-url is not installed: run "npm install --no-audit --no-fund ` +
                `--no-package-lock" in ${__dirname} (scripts/test.sh does)\n${e.message}`);
  process.exit(1);
}

const kGenerated = 4000;

// Hand-written cases: the examples and each leniency of the Standard.
const kHandWritten = [
  "http://bücher.example/",
  "http://example.org/a b",
  "HTTP://BÜCHER.example:80/Ä?ö=ü#frag",
  "http://faß.de/", "http://ß.de/", "http://xn--zca.de/", "http://XN--ZCA.de/",
  "http://例え.テスト/", "http://ΑΒΓ.gr/", "http://ｅｘａｍｐｌｅ.com/",
  "http://a。b．c｡d/", "http://☃.com/", "http://xn--n3h.com/",
  "http://xn--a.com/", "http://xn--.com/", "http://a.xn--bcher-kva.example/",
  "http://a.b.c.XN--pokxncvks", "http://bücher.xn--a.example/",
  "https://%c3%a9%00/", "https://\u05d0.a-\u0301/",
  "http://-x-.com/", "http://ab--c.com/", "http://a_b.com/", "http://١.com/",
  "http://a\u200db.com/", "http://www.\u05d0\u05d1.com/", "http://_a.\u05d0/",
  "http://a-.\u05d0/", "http://\u05d0\u0661" + "0/", "http://\u0627\u0661\u0662.eg/", "http://%65xample.com/", "http://ex%41mple.com/",
  "http://%C3%BC.example/", "http://%FF.example/", "http://a%2Fb.com/",
  "http://a%20b.com/", "http://exa mple.com/", "http://a<b.com/",
  "http://a{b}.com/", "http://a\"b.com/", "http://a`b.com/", "http://a^b/",
  "http://a..b/", "http://example.com./", "http://./", "http://../",
  "  http://example.com/  ", "\u0001http://example.com/\u001f",
  "ht\ttp://exa\tmple.com/a\tb", "http://example.com/a\rb",
  "http:\\\\example.com\\a\\b", "http:/\\/example.com/", "http:example.com/",
  "http:/example.com/", "http:////example.com///", "https:\\example.com",
  "http://0x7f.1/", "http://2130706433/", "http://0300.0250.1.1/",
  "http://127.1/", "http://127.0.1/", "http://0x7F000001/", "http://0x/",
  "http://1.2.3.4.5/", "http://256.1.1.1/", "http://1.256/",
  "http://4294967295/", "http://4294967296/", "http://1.2.3.4./",
  "http://1.2.3.09/", "http://a.0x1g/", "http://a.1/", "http://1.a/",
  "http://0xffffffff/", "http://00000000000000000001/",
  "http://[::1]/", "http://[2001:DB8:0:0::1]:80/", "http://[::ffff:1.2.3.4]/",
  "http://[1:0:0:2:0:0:0:3]/", "http://[0:0:1:0:0:1:0:0]/", "http://[::1/",
  "http://[::1]x/", "http://[fe80::1%25eth0]/", "http://[1::2::3]/",
  "http://[v1.x]/", "http://[::1.2.3.04]/", "http://[1:2:3:4:5:6:7:8:9]/",
  "http://example.com:8080/", "http://example.com:080/", "http://example.com:/",
  "http://example.com:0/", "http://example.com:65535/", "http://example.com:65536/",
  "https://example.com:443/", "https://example.com:80/", "http://example.com:8a/",
  "http://example.com:99999999999999999999/", "http://:80/", "http://@/",
  "http://u@example.com/", "http://u:p@example.com/", "http://:p@example.com/",
  "http://u:@example.com/", "http://@example.com/", "http://:@example.com/",
  "http://a@b@example.com/", "http://a:b:c@example.com/", "http://ü ö@example.com/",
  "http://u%zz@example.com/", "http://user@/p", "https://", "http:///a",
  "http://example.com/%7e%7E%41%2d%2E%5f%30", "http://example.com/%2f%3a%c3%a9",
  "http://example.com/%", "http://example.com/%z", "http://example.com/%zz",
  "http://example.com/a%2", "http://example.com/?q=%", "http://example.com/%25",
  "http://example.com/a/./b/../c", "http://example.com/../../x",
  "http://example.com/a/%2e/b/%2E%2e/c", "http://example.com/a/.%2E",
  "http://example.com/a/..", "http://example.com/a/.", "http://example.com/.../",
  "http://example.com/a//b", "http://example.com/a b/c\"d<e>f`g{h}i|j^k[l]m",
  "http://example.com/?a b&c\"d<e>f`g{h}i|j^k[l]m'n\\o", "http://example.com/?",
  "http://example.com?", "http://example.com#", "http://example.com/#a b",
  "http://example.com/p?q=1#f?g", "http://example.com/café?é=ü",
  "http://example.com/\u0000\u0001\u007f", "http://example.com/😀",
  "http://example.com/\ufeff", "http://example.com/'", "http://example.com/?'",
  "/relative", "relative", "example.com", "//example.com/", "?q", "#f",
  "localhost:8080", "example.com:80/a", "ftp://example.com/", "mailto:a@b.c",
  "javascript:alert(1)", "file:///etc/passwd", "data:text/plain,x",
  "ws://example.com/", "httpx://example.com/", "1http://example.com/", "",
  " ", "http:", "http:/", "http://", "http://\\", "http://?", "http://#",
];

// A small deterministic generator (mulberry32), so a failure reproduces.
function Random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function Generate(count, seed) {
  const random = Random(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const repeat = (n, f) => Array.from({ length: Math.floor(random() * n) }, f).join("");
  const kSchemes = ["http", "https", "HTTP", "hTtPs", "ftp", "http", "https"];
  const kSeparators = ["://", "://", "://", ":", ":/", ":\\\\", ":/\\", ":///", "://\\"];
  const kUserinfo = ["", "", "", "", "u@", "u:p@", ":@", "@", "a@b@", "ü:%zz@", "u:p:q@", " a@"];
  const kHosts = [
    "example.com", "EXAMPLE.com", "www.example.co.uk", "bücher.example",
    "BÜCHER.example", "xn--bcher-kva.example", "faß.de", "例え.jp", "ΑΒΓ.gr",
    "ｅｘａｍｐｌｅ.com", "a。b", "☃.com", "xn--a.com", "a_b.com", "-x-.com",
    "ab--cd.com", "0x7f.1", "127.1", "2130706433", "0300.0250.1.1", "1.2.3.4.5",
    "256.1.1.1", "1.2.3.4.", "0x100000000", "a.0x1g", "a.1", "[::1]",
    "[2001:DB8::1]", "[::ffff:1.2.3.4]", "[::1", "%65xample.com", "ex%41mple.com",
    "%C3%BC.de", "%zz.com", "a..b", "example.com.", "a b.com", "a{b}.com", "",
    "localhost", "١.com", "a\u200db.com", "xn--zca.de",
  ];
  const kPorts = ["", "", "", "", ":", ":80", ":443", ":8080", ":0", ":65536", ":08080", ":a", ":1"];
  const kPieces = [
    "a", "b", "Z", "..", ".", "%2e", "%2E%2e", ".%2e", "a b", "é", "%7e", "%7E",
    "%41", "%zz", "%", "%2", "|", "[x]", "^", "`", "{}", "\"", "<>", "\\", "~",
    "'", "\t", " ", "\u0001", "\u007f", "😀", "%c3%a9", "=", "&", "?", ";", ":",
    "@", "!", "$", "(", ")", "*", "+", ",", "%00", "\ufffd", "ü",
  ];
  const kEdges = ["", "", "", " ", "  ", "\u0000", "\u001f", "\t", "\u0000 \u0001"];
  // Code points for random IDN labels: Latin with diacritics and capitals,
  // sharp s, Greek, Cyrillic, Hebrew and Arabic (bidi), Devanagari, CJK,
  // Hangul, full-width letters and dots, combining marks, joiners, symbols
  // and emoji, soft hyphen (mapped away), and ASCII.
  const kIdnCodePoints = [
    0xe9, 0xfc, 0xc4, 0xdf, 0x3b1, 0x3a3, 0x3c2, 0x430, 0x416, 0x5d0, 0x627,
    0x661, 0x915, 0x94d, 0x4e2d, 0x6587, 0xac00, 0xff21, 0xff41, 0xff0e,
    0x3002, 0x301, 0x200c, 0x200d, 0x2603, 0x1f600, 0xad, 0x2488, 0x2160,
    0x61, 0x7a, 0x30, 0x2d, 0x2e, 0x5f,
  ];
  const randomHost = () => Array.from({ length: 1 + Math.floor(random() * 8) },
                                      () => String.fromCodePoint(pick(kIdnCodePoints))).join("");
  const inputs = [];
  for (let i = 0; i < count; ++i) {
    if (random() < 0.15) {  // an IDN host made of random code points
      const labels = Array.from({ length: 1 + Math.floor(random() * 3) }, randomHost);
      inputs.push(pick(kSchemes.slice(0, 4)) + "://" + labels.join(".") + pick(kPorts) + "/" +
                  repeat(3, () => pick(kPieces)));
      continue;
    }
    if (random() < 0.1) {  // a short string of URL-ish characters
      const alphabet = ":/\\?#@[]%.-aZ0 \t\u0001é9x";
      inputs.push("http" + repeat(12, () => pick(alphabet)));
      continue;
    }
    const segments = repeat(5, () => "/" + repeat(3, () => pick(kPieces)));
    const query = random() < 0.4 ? "?" + repeat(4, () => pick(kPieces)) : "";
    const fragment = random() < 0.2 ? "#" + repeat(3, () => pick(kPieces)) : "";
    inputs.push(pick(kEdges) + pick(kSchemes) + pick(kSeparators) + pick(kUserinfo) +
                pick(kHosts) + pick(kPorts) + segments + query + fragment + pick(kEdges));
  }
  return inputs;
}

const kHex = "0123456789ABCDEF";
const kUnreserved = /[A-Za-z0-9\-._~]/;

// frontierd's extra escaping rules on a component of the reference's href:
// each escape with upper-case hex, escapes of unreserved characters decoded,
// a '%' that starts no escape escaped, and the characters RFC 3986 forbids
// in that component (which the browser sends raw) escaped.
function FrontierEscape(text, forbidden) {
  let out = "";
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (c === "%" && /^[0-9A-Fa-f]{2}$/.test(text.substr(i + 1, 2))) {
      const byte = parseInt(text.substr(i + 1, 2), 16);
      const ch = String.fromCharCode(byte);
      out += kUnreserved.test(ch) ? ch : "%" + kHex[byte >> 4] + kHex[byte & 15];
      i += 2;
    } else if (c === "%" || forbidden.includes(c)) {
      const byte = c.charCodeAt(0);
      out += "%" + kHex[byte >> 4] + kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out;
}

// RFC 3986 forbids these raw in path, query or userinfo; the Standard's
// encode sets leave some of them (which ones depends on the component).
const kRfcForbidden = "[]|^\\`{}\"<> ";

// What frontierd must answer for `input`: {url} or {refused, rule}.
function Expected(input) {
  let ref;
  try {
    ref = new URL(input);
  } catch (e) {
    return { refused: true, rule: null };  // both must refuse
  }
  if (ref.protocol !== "http:" && ref.protocol !== "https:") {
    return { refused: true, rule: "only http and https", message: /unsupported scheme|relative URL/ };
  }
  if (ref.port === "0") return { refused: true, rule: "port 0", message: /invalid port '0+'/ };
  if (/["`{}]/.test(ref.hostname)) {
    // Next to non-ASCII text, libidn2 refuses the label first (IDNA2008).
    return { refused: true, rule: "'\"' '`' '{' '}' in a host",
             message: /cannot appear in a host name|\(IDNA2008, UTS #46\)$/ };
  }
  // The href without its fragment ('#' appears nowhere else in an href);
  // the query starts at the first '?' (path and userinfo escape it).
  const href = ref.href.split("#")[0];
  const question = href.indexOf("?");
  const query = question < 0 ? "" : "?" + FrontierEscape(href.slice(question + 1), kRfcForbidden);
  const userinfo = ref.username === "" && ref.password === "" ? "" :
    FrontierEscape(ref.username, kRfcForbidden) +
    (ref.password === "" ? "" : ":" + FrontierEscape(ref.password, kRfcForbidden)) + "@";
  const url = ref.protocol + "//" + userinfo + ref.host +
              FrontierEscape(ref.pathname, kRfcForbidden) + query;
  return { url, idna: /[^\x00-\x7f]|(^|\.)xn--/i.test(decodeURIComponentSafe(HostAsWritten(input))) };
}

function decodeURIComponentSafe(text) {
  try { return decodeURIComponent(text); } catch (e) { return text; }
}

// The host part of an input as written, roughly: only used to tell whether
// a refusal under the IDNA2008 rule concerned an IDN host.
function HostAsWritten(input) {
  const m = /^[^:]*:[\/\\]*(?:[^\/\\?#]*@)?([^\/\\?#:]*)/.exec(input.trim());
  return m ? m[1] : "";
}

function Main() {
  const binary = process.argv[2];
  if (!binary) {
    console.error("usage: node url_reference_test.js <url_normalise>");
    process.exit(2);
  }
  // '\n' separates the inputs; the Standard and frontierd both drop it.
  const inputs = kHandWritten.concat(Generate(kGenerated, 20261124))
                             .map((s) => s.replace(/\n/g, ""));
  const run = spawnSync(binary, [], { input: inputs.join("\n") + "\n", maxBuffer: 1 << 28 });
  if (run.status !== 0) {
    console.error("url_normalise failed:", run.status, String(run.stderr));
    process.exit(1);
  }
  const outputs = run.stdout.toString("utf8").split("\n");
  outputs.pop();
  if (outputs.length !== inputs.length) {
    console.error(`url_normalise answered ${outputs.length} lines for ${inputs.length} inputs`);
    process.exit(1);
  }

  const differences = [];
  const documented = new Map();  // rule -> count
  let agreedAccepted = 0, agreedRefused = 0;
  inputs.forEach((input, i) => {
    const got = outputs[i];
    const refused = got.startsWith("ERR ");
    const want = Expected(input);
    if (want.refused && want.rule === null) {
      if (refused) ++agreedRefused;
      else differences.push({ input, got, want: "ERR (the reference cannot parse it)" });
      return;
    }
    if (want.refused) {
      if (refused && want.message.test(got)) {
        documented.set(want.rule, (documented.get(want.rule) || 0) + 1);
      } else {
        differences.push({ input, got, want: `ERR (documented rule: ${want.rule})` });
      }
      return;
    }
    if (got === want.url) {
      ++agreedAccepted;
      return;
    }
    // libidn2 applies IDNA2008 on top of UTS #46: documented, IDN hosts only.
    if (refused && want.idna && got.includes("(IDNA2008, UTS #46)")) {
      const rule = "IDNA2008 forbids the label";
      documented.set(rule, (documented.get(rule) || 0) + 1);
      if (documented.get(rule) <= 5) {
        console.log(`documented difference (${rule}): ${JSON.stringify(input)}\n` +
                    `  reference ${want.url}\n  frontierd ${got}`);
      }
      return;
    }
    differences.push({ input, got, want: want.url });
  });

  // The two examples, spelled out: the comparison above would pass
  // if both sides were wrong the same way.
  const fixed = [
    ["http://bücher.example/", "http://xn--bcher-kva.example/"],
    ["http://example.org/a b", "http://example.org/a%20b"],
    ["http://0x7f.1/", "http://127.0.0.1/"],
    // An all-ASCII host is only lower-cased, "xn--" labels too, valid
    // punycode or not (the Standard since 2025; issue 18 §5).
    ["http://a.b.c.XN--pokxncvks", "http://a.b.c.xn--pokxncvks/"],
    ["http://xn--a.com/", "http://xn--a.com/"],
  ];
  for (const [input, want] of fixed) {
    const got = outputs[inputs.indexOf(input)];
    if (got !== want) differences.push({ input, got, want });
  }

  console.log(`url_reference: ${inputs.length} inputs (${kHandWritten.length} hand-written, ` +
              `${kGenerated} generated): ${agreedAccepted} same URL, ${agreedRefused} refused by both`);
  for (const [rule, count] of documented) {
    console.log(`  refused by frontierd only, documented rule "${rule}": ${count}`);
  }
  if (differences.length > 0) {
    console.log(`${differences.length} differences:`);
    for (const d of differences) {
      console.log(`  input     ${JSON.stringify(d.input)}\n  frontierd ${JSON.stringify(d.got)}\n  expected  ${JSON.stringify(d.want)}`);
    }
    process.exit(1);
  }
}

Main();
