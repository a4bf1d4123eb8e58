// What a sandboxed kernel writes must never run on the host, loosen a later session, or reach a
// secret (issue: sandbox integrity). Each attack runs through `ipybox mcp --sandbox` with the
// real srt, and again without --sandbox as the control that shows the attack is real.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import {
  NODE_MODULES, callTool, everythingParams, removeDir, runCell, runOk, startServer, textOf,
} from "./support.mjs";

const SRT = path.join(NODE_MODULES, ".bin", "srt");
// Not under /tmp, which the sandbox hides as a whole: the credentials and the registry must be
// hidden for what they are, not for where a test happens to put them.
const root = fs.realpathSync(fs.mkdtempSync(path.join("/var/tmp", "ipybox-mcp-integrity-")));
const home = path.join(root, "home");            // a fake HOME with credentials in it
const state = path.join(root, "state");          // XDG_STATE_HOME: ipybox's registry
const sandboxed = path.join(root, "sandboxed");  // the workspaces
const control = path.join(root, "control");
const servers = [];

// Credential files a host typically has, relative to HOME.
const CREDENTIALS = [
  ".ssh/id_ed25519", ".aws/credentials", ".config/gh/hosts.yml", ".netrc", ".docker/config.json",
  ".claude/.credentials.json", ".claude.json", ".npmrc", ".pypirc", ".kube/config", ".git-credentials",
  ".config/gcloud/credentials.db", ".gnupg/secring.gpg",
];

// Files a later session, Claude Code, git or a shell reads as configuration or runs.
const TRUSTED = [
  ".claude/settings.json", ".claude/settings.local.json", ".claude/hooks/evil.sh", ".claude/commands/evil.md",
  ".claude/ipybox-sandbox.json", "CLAUDE.md", ".mcp.json", ".envrc",
  "sandbox-config.json", ".ipybox/evil", ".git/hooks/pre-commit", ".git/config", ".git/commondir",
  ".git/info/attributes", "AGENTS.md", ".claude/rules/evil.md", ".claude/statusline.sh", "conf/sandbox.json",
  "conf/policy.json",
  // Repositories nested in the workspace: commondir can point one at a config the kernel wrote
  // (core.fsmonitor runs on the host's next `git status`); a gitfile can point it anywhere.
  "vendor/lib/.git/commondir", "vendor/lib/.git/config", "vendor/lib/.git/hooks/post-checkout",
  "vendor/nohooks/.git/commondir", "vendor/worktree/.git",
];

function prepareWorkspace(workspace) {
  fs.mkdirSync(path.join(workspace, "conf"), { recursive: true });
  fs.writeFileSync(path.join(workspace, "conf", "sandbox.json"), "{}\n");
  fs.writeFileSync(path.join(workspace, "conf", "policy.json"), "{\"default\": \"allow\"}\n");
  execFileSync("git", ["init", "-q", workspace]);
  execFileSync("git", ["init", "-q", path.join(workspace, "vendor", "lib")]);
  execFileSync("git", ["init", "-q", path.join(workspace, "vendor", "nohooks")]);
  fs.rmSync(path.join(workspace, "vendor", "nohooks", ".git", "hooks"), { recursive: true });
  fs.mkdirSync(path.join(workspace, "vendor", "worktree"));
  fs.writeFileSync(path.join(workspace, "vendor", "worktree", ".git"), "gitdir: ../lib/.git\n");
  // An existing .claude, as most Claude Code projects have: protected whole.
  fs.mkdirSync(path.join(workspace, ".claude"));
}

async function start(workspace, withSandbox) {
  const args = ["mcp", "--workspace", workspace, "--approval-policy", path.join(workspace, "conf", "policy.json")];
  if (withSandbox) args.push("--sandbox", "--sandbox-config", path.join(workspace, "conf", "sandbox.json"));
  const server = await startServer({
    workspace, stateDir: state, cwd: workspace, args,
    // PIP_NO_INDEX: install_package must not reach a package index from a test.
    env: { IPYBOX_SRT: SRT, HOME: home, XDG_STATE_HOME: state, PIP_NO_INDEX: "1" },
  });
  servers.push(server);
  return server;
}

// Runs `attempts` (a Python dict literal of name -> zero-argument callable) and returns the names
// whose call raised OSError, one per line, sorted.
const probe = (attempts) => [
  "import os",
  `attempts = ${attempts}`,
  "blocked = []",
  "for name, act in attempts.items():",
  "    try:",
  "        act()",
  "    except OSError:",
  "        blocked.append(name)",
  "print('\\n'.join(sorted(blocked)) or '-')",
].join("\n");

function writes(paths) {
  return "{" + paths.map((p) => `${JSON.stringify(p)}: (lambda p=${JSON.stringify(p)}: ` +
    "(os.makedirs(os.path.dirname(p), exist_ok=True) if os.path.dirname(p) else None, open(p, 'a').write('x')))").join(", ") + "}";
}

function reads(paths) {
  return "{" + paths.map((p) => `${JSON.stringify(p)}: (lambda p=${JSON.stringify(p)}: open(p).read())`).join(", ") + "}";
}

let plain;
let boxed;

before(async () => {
  assert.ok(fs.existsSync(SRT), "install the npm test peers: npm install --prefix tests/node");
  for (const file of CREDENTIALS) {
    fs.mkdirSync(path.dirname(path.join(home, file)), { recursive: true });
    fs.writeFileSync(path.join(home, file), "secret\n");
  }
  fs.mkdirSync(path.join(home, ".npm", "_logs"), { recursive: true });
  prepareWorkspace(sandboxed);
  prepareWorkspace(control);
  plain = await start(control, false);
  boxed = await start(sandboxed, true);
  // A server registered with a literal secret: the registry (host-side state) holds it.
  for (const server of [plain, boxed]) {
    const result = await callTool(server.client, "register_mcp_server",
      { server_name: "everything", server_params: everythingParams({ LITERAL_TOKEN: "tok-123" }) });
    assert.ok(!result.isError, textOf(result));
  }
  // The attacks run in forked kernels: after a reset the kernel is the spare, a child of the
  // kernel template (inside the sandbox under --sandbox).
  for (const server of [plain, boxed]) {
    const reset = await callTool(server.client, "reset");
    assert.ok(!reset.isError, textOf(reset));
    const parent = await runOk(server.client,
      "import os\nprint(b'kernel_template' in open(f'/proc/{os.getppid()}/cmdline', 'rb').read())");
    assert.equal(parent.trim(), "True", "the kernel was not forked from the template");
  }
});

after(async () => {
  for (const server of servers) await server.close();
  removeDir(root);
});

test("the kernel cannot write a file that a later session trusts (control: it can, unsandboxed)", async () => {
  const everything = TRUSTED.slice().sort().join("\n");
  assert.equal(await runOk(plain.client, probe(writes(TRUSTED))), "-", "control: all writable");
  assert.equal(await runOk(boxed.client, probe(writes(TRUSTED))), everything);
  for (const file of TRUSTED) {
    const full = path.join(sandboxed, file);
    assert.ok(!fs.existsSync(full) || !fs.readFileSync(full, "utf8").includes("x"), file);
  }
  // An ordinary file in the workspace stays writable.
  assert.equal(await runOk(boxed.client, "open('notes.txt', 'w').write('ok')\nprint(open('notes.txt').read())"), "ok");
});

test("secrets are unreadable from the kernel: credentials and ipybox's registry (control: readable)", async () => {
  const registry = fs.readdirSync(path.join(state, "ipybox", "workspaces")).map((name) =>
    path.join(state, "ipybox", "workspaces", name));
  assert.ok(registry.length >= 2);
  assert.ok(registry.some((file) => fs.readFileSync(file, "utf8").includes("tok-123")), "the registry holds the literal");
  const targets = [...CREDENTIALS.map((file) => path.join(home, file)), ...registry];
  assert.equal(await runOk(plain.client, probe(reads(targets))), "-", "control: all readable");
  assert.equal(await runOk(boxed.client, probe(reads(targets))), targets.slice().sort().join("\n"));
  // The host still uses the literal: the tool call works and its environment has the token.
  const env = await runOk(boxed.client,
    "from mcptools.everything import get_env\nprint('tok-123' in str(get_env.run(get_env.Params())))");
  assert.equal(env, "True");
});

test("writable means the workspace and the kernel's own temp dir: not ~/.npm/_logs nor /tmp/claude", async () => {
  const targets = [path.join(home, ".npm", "_logs", "x.log"), path.join(home, ".claude", "debug", "x"),
    path.join(home, "elsewhere.txt")];
  assert.equal(await runOk(plain.client, probe(writes(targets))), "-", "control: writable");
  for (const target of targets) {
    assert.ok(fs.existsSync(target), `control: ${target}`);
    fs.rmSync(target);
  }
  // Under a hidden folder (~/.claude, ~/.npm/_logs) a write may land in the empty scratch space
  // that hides it; either way nothing may reach the host.
  await runOk(boxed.client, probe(writes(targets)));
  for (const target of targets) assert.ok(!fs.existsSync(target), `reached the host: ${target}`);
  // /tmp is hidden: what the kernel writes there lands in a scratch space of its own, never in the
  // host's /tmp (srt would otherwise keep /tmp/claude writable).
  fs.rmSync("/tmp/claude/ipybox-probe", { force: true });
  await runOk(boxed.client, probe(writes(["/tmp/claude/ipybox-probe"])));
  assert.ok(!fs.existsSync("/tmp/claude/ipybox-probe"), "a sandboxed write reached the host's /tmp/claude");
  assert.equal(await runOk(boxed.client,
    "import tempfile\nwith tempfile.NamedTemporaryFile() as f: f.write(b'ok')\nprint('temp ok')"), "temp ok");
});

test("planted json.py, pip/, site.py, sitecustomize.py, usercustomize.py never run on the host", async () => {
  const marker = path.join(root, "planted-ran");
  const payload = `open(${JSON.stringify(marker)}, 'a').write(__name__ + '\\n')\n`;
  const plant = [
    "import os",
    "os.makedirs('pip', exist_ok=True)",
    ...["json.py", "pip/__init__.py", "pip/__main__.py", "site.py", "sitecustomize.py", "usercustomize.py"]
      .map((name) => `open(${JSON.stringify(name)}, 'w').write(${JSON.stringify(payload)})`),
    "print('planted')",
  ].join("\n");
  assert.equal(await runOk(boxed.client, plant), "planted");
  // Control: a plain host Python started in the workspace runs the planted json.py and pip.
  execFileSync("/usr/bin/python3", ["-c", "import json"], { cwd: sandboxed });
  try {
    execFileSync("/usr/bin/python3", ["-m", "pip", "--version"], { cwd: sandboxed, stdio: "pipe" });
  } catch { /* the planted pip has no CLI */ }
  assert.match(fs.readFileSync(marker, "utf8"), /json/);
  fs.rmSync(marker);
  // install_package (pip on the host) and a new session's interpreter probe, both started by
  // ipybox with the workspace as their directory's neighbour: nothing planted runs.
  const result = await callTool(boxed.client, "install_package", { package_name: "ipybox-no-such-package==0.0.0" });
  assert.ok(result.isError, textOf(result));
  // A new session on the same workspace probes the interpreter before its first kernel (which
  // itself, sandboxed, may import the planted json.py and fail: that stays inside the sandbox).
  const again = await start(sandboxed, true);
  await runCell(again.client, "print('probe ok')");
  assert.equal(fs.existsSync(marker), false, fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : "");
  for (const name of ["json.py", "site.py", "sitecustomize.py", "usercustomize.py", "pip"]) {
    fs.rmSync(path.join(sandboxed, name), { recursive: true, force: true });
  }
});

test("install_package under --sandbox builds nothing local, however the spec names it", async () => {
  const here = path.join(sandboxed, "pkg");
  for (const spec of ["./pip", here, `pkg @ file://${here}`, `git+file://${here}`, `file://${here}`,
    here.slice(1), "~/pkg", "../x", "name @ ./pkg"]) {
    const result = await callTool(boxed.client, "install_package", { package_name: spec });
    assert.ok(result.isError, spec);
    assert.match(textOf(result), /installs only from a package index or a network URL.*%pip install/s, spec);
  }
  // Control: a requirement for an index reaches pip (which then finds no index: PIP_NO_INDEX).
  const plainSpec = await callTool(boxed.client, "install_package", { package_name: "ipybox-none[x]>=1.0,<2" });
  assert.doesNotMatch(textOf(plainSpec), /installs only from a package index/);
});
