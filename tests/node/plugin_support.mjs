// Shared helpers of the Claude Code plugin tests (tests/integration/plugin/*.test.mjs): the
// real Claude Code CLI from tests/node/node_modules, a private HOME per test, the marketplace
// served as a git repository without a network, and the scripted fake model.
//
// Missing prerequisites throw with the command that installs them: these tests fail, never skip.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const NODE_DIR = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(NODE_DIR, "..", "..");
export const EVERYTHING = path.join(NODE_DIR, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const PLUGINS = ["codeact-default", "codeact-sandbox", "codeact-docker"];
export const SKILL_PLUGIN = "codeact-skill";
// What the marketplace ships: the only paths a git clone of it needs.
const MARKETPLACE_PATHS = [".claude-plugin", "plugins", "skills", "install.sh", "docker-build.sh"];

export function projectVersion() {
  const cmake = fs.readFileSync(path.join(ROOT, "CMakeLists.txt"), "utf8");
  return /project\(ipybox VERSION ([0-9.]+)/.exec(cmake)[1];
}

export function claudeBinary() {
  const candidates = [
    path.join(NODE_DIR, "node_modules/@anthropic-ai/claude-code-linux-x64/claude"),
    path.join(NODE_DIR, "node_modules/@anthropic-ai/claude-code/bin/claude.exe"),
  ];
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) {
    throw new Error(`Claude Code is not installed; run: npm install --prefix ${NODE_DIR} (looked at ${candidates.join(", ")})`);
  }
  return found;
}

export function ipyboxBinary() {
  const binary = process.env.IPYBOX_BIN;
  if (!binary || !fs.existsSync(binary)) {
    throw new Error(`set IPYBOX_BIN to a built ipybox binary (got ${JSON.stringify(binary ?? null)}); ctest does this`);
  }
  return binary;
}

export function requireFile(file, hint) {
  if (!fs.existsSync(file)) throw new Error(`${file} is missing; ${hint}`);
  return file;
}

// A fresh HOME and project directory; Claude Code writes all its state under HOME (and /tmp).
export function makeSandbox(t, name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ipybox-plugin-${name}-`));
  const home = path.join(dir, "home");
  const project = path.join(dir, "project");
  fs.mkdirSync(home);
  fs.mkdirSync(project);
  if (!process.env.IPYBOX_KEEP_TEST_DIRS) t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    LANG: "C.UTF-8",
    TMPDIR: process.env.TMPDIR ?? "/tmp",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
  return { dir, home, project, env };
}

export function runClaude(sandbox, args, { env = {}, cwd, timeout = 120_000, input = "" } = {}) {
  const started = Date.now();
  const result = spawnSync(claudeBinary(), args, {
    cwd: cwd ?? sandbox.project,
    env: { ...sandbox.env, ...env },
    input,
    encoding: "utf8",
    timeout,
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const description = `claude ${args.join(" ")} -> status ${result.status}${result.signal ? ` (${result.signal})` : ""} in ${seconds} s\n` +
    `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "", output: `${result.stdout}${result.stderr}`, description };
}

// The marketplace as a git repository at a made-up https URL that git (and so Claude Code)
// resolves to a local bare repository through url.<base>.insteadOf in the sandbox's HOME. This
// is how users add it from GitHub: Claude Code clones it and installs plugins from the clone.
export function serveMarketplaceOverGit(sandbox) {
  const work = path.join(sandbox.dir, "marketplace-src");
  fs.mkdirSync(work);
  for (const entry of MARKETPLACE_PATHS) {
    fs.cpSync(path.join(ROOT, entry), path.join(work, entry), { recursive: true, verbatimSymlinks: true });
  }
  const git = (args, cwd) => execFileSync("git", args, { cwd, env: sandbox.env, stdio: "pipe" });
  git(["init", "-q", "-b", "main"], work);
  git(["add", "-A"], work);
  git(["-c", "user.name=ipybox tests", "-c", "user.email=tests@ipybox.invalid", "commit", "-q", "-m", "marketplace snapshot"], work);
  const bare = path.join(sandbox.dir, "marketplace.git");
  git(["clone", "-q", "--bare", work, bare], sandbox.dir);
  const url = "https://git.ipybox.invalid/ipybox/ipybox.git";
  git(["config", "--global", `url.file://${bare}.insteadOf`, url], sandbox.dir);
  git(["config", "--global", "protocol.file.allow", "always"], sandbox.dir);
  return url;
}

// Changes the served marketplace like a new release would: mutate(sourceDir), commit, push.
export function publishMarketplaceChange(sandbox, mutate) {
  const work = path.join(sandbox.dir, "marketplace-src");
  mutate(work);
  const git = (args) => execFileSync("git", args, { cwd: work, env: sandbox.env, stdio: "pipe" });
  git(["-c", "user.name=ipybox tests", "-c", "user.email=tests@ipybox.invalid", "commit", "-q", "-a", "-m", "release"]);
  git(["push", "-q", path.join(sandbox.dir, "marketplace.git"), "main"]);
}

export function installedPlugins(sandbox) {
  const listed = runClaude(sandbox, ["plugin", "list", "--json"]);
  if (listed.status !== 0) throw new Error(listed.description);
  return JSON.parse(listed.stdout);
}

// Every file under dir, relative, sorted (directories followed).
export function filesUnder(dir) {
  const files = [];
  const walk = (current) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (fs.statSync(full).isDirectory()) walk(full);
      else files.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return files.sort();
}

// The scripted model of plugin_fake_model.mjs on a free loopback port.
export async function startFakeModel(t, sandbox, script) {
  const scriptPath = path.join(sandbox.dir, "model-script.json");
  const portFile = path.join(sandbox.dir, "model-port");
  const logPath = path.join(sandbox.dir, "model-requests.jsonl");
  fs.writeFileSync(scriptPath, JSON.stringify(script, null, 2));
  const child = spawn(process.execPath, [path.join(NODE_DIR, "plugin_fake_model.mjs"), scriptPath, portFile, logPath], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  t.after(() => child.kill("SIGTERM"));
  for (let waited = 0; !fs.existsSync(portFile); waited += 50) {
    if (waited > 10_000 || child.exitCode !== null) throw new Error("the fake model did not start");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const port = Number(fs.readFileSync(portFile, "utf8"));
  const requests = () => (fs.existsSync(logPath) ? fs.readFileSync(logPath, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line)) : []);
  return { baseUrl: `http://127.0.0.1:${port}`, requests, logPath };
}

// Where Claude Code keeps a project's MCP server logs; their text, joined, for assertions.
export function mcpLogs(sandbox, server) {
  const root = path.join(sandbox.home, ".cache", "claude-cli-nodejs");
  if (!fs.existsSync(root)) return "";
  let text = "";
  for (const project of fs.readdirSync(root)) {
    const dir = path.join(root, project, `mcp-logs-${server}`);
    if (!fs.existsSync(dir)) continue;
    for (const file of fs.readdirSync(dir)) text += fs.readFileSync(path.join(dir, file), "utf8");
  }
  return text;
}
