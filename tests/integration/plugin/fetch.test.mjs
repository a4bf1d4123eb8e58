// The plugin-only way in: codeact-default installed from the marketplace on a machine with no
// ipybox anywhere. Its launcher fetches the portable tarball (made from the built tree by
// packaging/make-tarball.sh) from a loopback HTTP server, checks it against the SHA-256 in the
// plugin's release.txt, unpacks it into CLAUDE_PLUGIN_DATA and starts it; `claude mcp list` then
// shows the server Connected. Prints the time from `claude plugin install` to Connected.
//
//   node tests/integration/plugin/fetch.test.mjs <build dir>
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import test from "node:test";

import { ROOT, claudeBinary, makeSandbox, mcpLogs, projectVersion } from "../../node/plugin_support.mjs";

const BUILD_DIR = path.resolve(process.argv[2] ?? path.join(ROOT, "build"));
const VERSION = projectVersion();
const ARCH = execFileSync("uname", ["-m"], { encoding: "utf8" }).trim();
const TARBALL = `ipybox-${VERSION}-linux-${ARCH}.tar.gz`;
const SERVER = "plugin:codeact-default:ipybox:";

// Claude Code with no installed ipybox: /usr/local/bin is hidden in a private mount namespace
// when it holds one (the launcher looks there), the rest of the search is the sandbox's own.
function claude(sandbox, args, env = {}) {
  // Not on PATH either: run-tests.sh puts the fresh build's installed copy first there.
  const searched = ["ipybox", "uvx", "uv"];
  const PATH = (sandbox.env.PATH ?? "").split(":")
    .filter((dir) => !searched.some((name) => fs.existsSync(path.join(dir, name)))).join(":");
  sandbox = { ...sandbox, env: { ...sandbox.env, PATH } };
  const hide = fs.existsSync("/usr/local/bin/ipybox");
  const command = hide ? "unshare" : claudeBinary();
  const prefix = hide ? ["--mount", "sh", "-c", 'mount -t tmpfs none /usr/local/bin && exec "$@"', "sh", claudeBinary()] : [];
  const result = spawnSync(command, [...prefix, ...args], {
    cwd: sandbox.project, env: { ...sandbox.env, ...env }, encoding: "utf8", timeout: 180_000,
  });
  const description = `claude ${args.join(" ")} -> ${result.status}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  return { status: result.status, stdout: result.stdout ?? "", description };
}

function serverLine(listed) {
  return listed.stdout.split("\n").find((line) => line.startsWith(SERVER)) ?? "";
}

// python3's http.server on 127.0.0.1: serves <dir>/v<version>/<file>, logs each request.
async function serveReleases(t, dir) {
  const log = path.join(dir, "..", "requests.log");
  const server = spawn("python3", ["-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", dir, "0"], {
    stdio: ["ignore", "pipe", fs.openSync(log, "w")],
  });
  t.after(() => server.kill());
  const port = await new Promise((resolve, reject) => {
    let text = "";
    server.stdout.on("data", (chunk) => {
      text += chunk;
      const match = / port (\d+) /.exec(text);
      if (match) resolve(Number(match[1]));
    });
    server.on("exit", (code) => reject(new Error(`http.server exited (${code})`)));
  });
  const downloads = () => fs.readFileSync(log, "utf8").split("\n").filter((line) => line.includes(`GET /v${VERSION}/${TARBALL}`)).length;
  return { url: `http://127.0.0.1:${port}`, downloads };
}

// A marketplace copy whose release.txt points at `url` and lists `digest` for this machine.
function marketplaceFor(sandbox, url, digest) {
  const dir = path.join(sandbox.dir, "marketplace");
  for (const entry of [".claude-plugin", "plugins", "skills"]) {
    fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  }
  for (const plugin of ["codeact-default", "codeact-sandbox"]) {
    const file = path.join(dir, "plugins", plugin, "release.txt");
    const comments = fs.readFileSync(file, "utf8").split("\n").filter((line) => line.startsWith("#"));
    fs.writeFileSync(file, [...comments, `url ${url}`, `sha256 ${TARBALL} ${digest}`, ""].join("\n"));
  }
  return dir;
}

function makeRelease(sandbox) {
  const made = execFileSync(path.join(ROOT, "packaging", "make-tarball.sh"), [BUILD_DIR, path.join(sandbox.dir, "dist")], { encoding: "utf8" }).trim();
  const releases = path.join(sandbox.dir, "releases");
  fs.mkdirSync(path.join(releases, `v${VERSION}`), { recursive: true });
  fs.copyFileSync(made, path.join(releases, `v${VERSION}`, TARBALL));
  const digest = execFileSync("sha256sum", [made], { encoding: "utf8" }).split(" ")[0];
  return { releases, served: path.join(releases, `v${VERSION}`, TARBALL), digest };
}

function install(sandbox, marketplace) {
  const added = claude(sandbox, ["plugin", "marketplace", "add", marketplace]);
  assert.equal(added.status, 0, added.description);
  const installed = claude(sandbox, ["plugin", "install", "codeact-default@ipybox"]);
  assert.equal(installed.status, 0, installed.description);
}

const dataCopy = (sandbox) => path.join(sandbox.home, ".claude", "plugins", "data", "codeact-default-ipybox", "ipybox");

test("first start downloads the release and connects; the second start does not download", async (t) => {
  const sandbox = makeSandbox(t, "fetch");
  const { releases, digest } = makeRelease(sandbox);
  const server = await serveReleases(t, releases);
  const marketplace = marketplaceFor(sandbox, server.url, digest);
  const added = claude(sandbox, ["plugin", "marketplace", "add", marketplace]);
  assert.equal(added.status, 0, added.description);

  const started = Date.now();
  const installed = claude(sandbox, ["plugin", "install", "codeact-default@ipybox"]);
  assert.equal(installed.status, 0, installed.description);
  const first = claude(sandbox, ["mcp", "list"]);
  const seconds = (Date.now() - started) / 1000;
  assert.match(serverLine(first), /✔ Connected/, `${first.description}\nlog:\n${mcpLogs(sandbox, "plugin-codeact-default-ipybox")}`);
  console.log(`# claude plugin install -> Connected, downloading ${TARBALL} from loopback: ${seconds.toFixed(1)} s`);
  assert.equal(server.downloads(), 1);
  assert.ok(fs.existsSync(path.join(dataCopy(sandbox), "bin", "ipybox")), "the release copy is in CLAUDE_PLUGIN_DATA");
  assert.match(mcpLogs(sandbox, "plugin-codeact-default-ipybox"), /downloading ipybox .* from http:\/\/127\.0\.0\.1:/);

  const again = Date.now();
  const second = claude(sandbox, ["mcp", "list"]);
  assert.match(serverLine(second), /✔ Connected/, second.description);
  console.log(`# second claude mcp list, the binary already there: ${((Date.now() - again) / 1000).toFixed(1)} s`);
  assert.equal(server.downloads(), 1, "the second start must not download again");
});

test("a tampered tarball is refused with a clear message and nothing from it is unpacked", async (t) => {
  const sandbox = makeSandbox(t, "fetch-tampered");
  const { releases, served, digest } = makeRelease(sandbox);
  const bytes = fs.readFileSync(served);
  bytes[bytes.length - 100] ^= 0xff;
  fs.writeFileSync(served, bytes);
  const server = await serveReleases(t, releases);
  install(sandbox, marketplaceFor(sandbox, server.url, digest));
  const listed = claude(sandbox, ["mcp", "list"]);
  assert.match(serverLine(listed), /Failed/, listed.description);
  assert.ok(server.downloads() >= 1, "the launcher must have tried the download (Claude Code may retry a failed start)");
  const log = mcpLogs(sandbox, "plugin-codeact-default-ipybox");
  assert.match(log, new RegExp(`refusing .*${TARBALL}: its SHA-256 is [0-9a-f]{64}, but this plugin expects ${digest}`));
  assert.match(log, /Nothing from it was unpacked or run/);
  assert.ok(!fs.existsSync(dataCopy(sandbox)), "nothing may be unpacked from a tarball that fails the check");
});

test("an unreachable release URL fails with the ways to install ipybox", (t) => {
  const sandbox = makeSandbox(t, "fetch-offline");
  install(sandbox, marketplaceFor(sandbox, "http://127.0.0.1:1", "0".repeat(64)));
  const listed = claude(sandbox, ["mcp", "list"]);
  assert.match(serverLine(listed), /Failed/, listed.description);
  const log = mcpLogs(sandbox, "plugin-codeact-default-ipybox");
  assert.match(log, /could not download http:\/\/127\.0\.0\.1:1\//);
  assert.match(log, /sudo apt-get install \.\/ipybox_/);
  assert.match(log, /run \.\/install\.sh/);
});
