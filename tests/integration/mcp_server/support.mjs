// Shared helpers for the Node suite that drives `ipybox mcp` with the official MCP TypeScript SDK
// client (and, where the SDK would hide what is on the wire, with raw JSON lines).
//
// Prerequisites are checked when this module loads: a missing ipybox binary or a missing
// tests/node/node_modules makes every test file fail with a message saying what to do. Nothing
// here skips.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(here, "../../..");
export const NODE_DIR = path.join(REPO, "tests", "node");
export const NODE_MODULES = path.join(NODE_DIR, "node_modules");
export const IPYBOX = path.resolve(process.env.IPYBOX_BIN || path.join(REPO, "build", "native", "cli", "ipybox"));
export const EVERYTHING = path.join(NODE_MODULES, "@modelcontextprotocol", "server-everything", "dist", "index.js");
export const FILESYSTEM = path.join(NODE_MODULES, "@modelcontextprotocol", "server-filesystem", "dist", "index.js");

function checkPrerequisites() {
  const problems = [];
  if (!fs.existsSync(IPYBOX)) {
    problems.push(`the ipybox binary is missing at ${IPYBOX}: build it (cmake --build <dir> --target ipybox) ` +
      "and point IPYBOX_BIN at it");
  }
  for (const peer of ["@modelcontextprotocol/sdk", "@modelcontextprotocol/server-everything",
                      "@modelcontextprotocol/server-filesystem"]) {
    if (!fs.existsSync(path.join(NODE_MODULES, peer, "package.json"))) {
      problems.push(`${peer} is missing from ${NODE_MODULES}: run npm install --prefix tests/node`);
    }
  }
  if (problems.length > 0) {
    throw new Error("prerequisites of the ipybox MCP server suite are missing:\n  - " + problems.join("\n  - "));
  }
}
checkPrerequisites();

// Imports an ESM entry point of a package installed in tests/node (this folder is outside that
// package, so bare specifiers would not resolve from here).
export async function importPeer(name, subpath) {
  const root = path.join(NODE_MODULES, name);
  const exports = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).exports;
  let target = exports[subpath]?.import;
  if (!target && exports["./*"]) target = exports["./*"].import.replace("*", subpath.slice(2));
  assert.ok(target, `${name} does not export ${subpath}`);
  return import(pathToFileURL(path.join(root, target)).href);
}

export const { Client } = await importPeer("@modelcontextprotocol/sdk", "./client");
export const { StdioClientTransport } = await importPeer("@modelcontextprotocol/sdk", "./client/stdio.js");
export const { McpError, ElicitRequestSchema } = await importPeer("@modelcontextprotocol/sdk", "./types.js");

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A fresh directory under the system temp dir, resolved (the server canonicalises its workspace).
export function makeTempDir(label) {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `ipybox-${label}-`)));
}

export function removeDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
}

// Every file and folder under `root`, as sorted relative paths.
export function listTree(root) {
  const entries = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      entries.push(path.relative(root, full) + (entry.isDirectory() ? "/" : ""));
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(root);
  return entries.sort();
}

// The environment a server under test gets: ours, with its state (the registry of servers) kept
// under `stateDir` instead of ~/.local/state.
export function serverEnvironment(stateDir, extra = {}) {
  return { ...process.env, XDG_STATE_HOME: stateDir, ...extra };
}

// ---- processes --------------------------------------------------------------------------------

function readProc(pid, file) {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return null;
  }
}

function parentOf(pid) {
  const stat = readProc(pid, "stat");
  if (!stat) return null;
  // The command name may hold spaces and parentheses: fields resume after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0], ppid: Number(fields[1]) };
}

function allPids() {
  return fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number);
}

// A process that has exited but not been reaped is gone for our purposes.
export function isAlive(pid) {
  const info = parentOf(pid);
  return info !== null && info.state !== "Z" && info.state !== "X";
}

// Reaped by its parent: not even a zombie is left.
export function isGone(pid) {
  return !fs.existsSync(`/proc/${pid}`);
}

export function commandLine(pid) {
  return (readProc(pid, "cmdline") ?? "").split("\0").filter(Boolean).join(" ");
}

// All live descendants of `pid` with their command lines.
export function descendants(pid) {
  const children = new Map();
  for (const candidate of allPids()) {
    const info = parentOf(candidate);
    if (!info || info.state === "Z") continue;
    if (!children.has(info.ppid)) children.set(info.ppid, []);
    children.get(info.ppid).push(candidate);
  }
  const found = [];
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length > 0) {
    const next = queue.shift();
    found.push({ pid: next, command: commandLine(next) });
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}

// Kernel processes (ipybox_runtime.kernel_main) whose working directory is `workspace`: the same
// question as `pgrep -f ipybox_runtime.kernel_main`, narrowed to one test's kernels.
export function kernelsIn(workspace) {
  return allPids().filter((pid) => {
    if (!isAlive(pid) || !commandLine(pid).includes("ipybox_runtime.kernel_main")) return false;
    try {
      return fs.readlinkSync(`/proc/${pid}/cwd`) === workspace;
    } catch {
      return false;
    }
  });
}

export async function waitUntil(predicate, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

// Waits until none of `processes` is alive; returns the ones still alive after `timeoutMs`.
export async function survivorsAfter(processes, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let alive = processes.filter((p) => isAlive(p.pid));
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(50);
    alive = alive.filter((p) => isAlive(p.pid));
  }
  return alive;
}

// ---- the SDK client against `ipybox mcp` --------------------------------------------------------

// Wraps the SDK's stdio transport to see the initialize exchange: it can offer an older protocol
// version than the SDK's latest (the SDK always offers its newest) and keeps the server's reply.
class InitializeWatchingTransport {
  constructor(inner, offer) {
    this.inner = inner;
    this.offer = offer;
    this.initializeReply = null;
    inner.onmessage = (message) => {
      if (this.initializeId !== undefined && message.id === this.initializeId) this.initializeReply = message;
      this.onmessage?.(message);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }
  start() { return this.inner.start(); }
  close() { return this.inner.close(); }
  setProtocolVersion(version) { this.inner.setProtocolVersion?.(version); }
  get pid() { return this.inner.pid; }
  send(message, options) {
    if (message.method === "initialize") {
      this.initializeId = message.id;
      if (this.offer) message = { ...message, params: { ...message.params, protocolVersion: this.offer } };
    }
    return this.inner.send(message, options);
  }
}

// Starts `ipybox mcp` and connects the SDK client to it.
//   workspace   the --workspace directory
//   stateDir    where the server keeps host-side state (XDG_STATE_HOME)
//   env         extra environment variables for the server
//   args        the command line after the binary (default: mcp --workspace <workspace>)
//   offer       a protocol version to offer instead of the SDK's latest
//   capabilities  the client's capabilities (e.g. { elicitation: {} })
//   onElicit    answers elicitation/create requests: (params) => ({ action, content })
export async function startServer({ workspace, stateDir, env = {}, args, offer, cwd, capabilities = {},
                                    onElicit } = {}) {
  const transport = new StdioClientTransport({
    command: IPYBOX,
    args: args ?? ["mcp", "--workspace", workspace, "--log-level", "info"],
    env: serverEnvironment(stateDir, env),
    stderr: "pipe",
    cwd,
  });
  let stderr = "";
  transport.stderr.on("data", (chunk) => { stderr += chunk; });
  const client = new Client({ name: "ipybox-node-tests", version: "1.0.0" }, { capabilities });
  if (onElicit) client.setRequestHandler(ElicitRequestSchema, (request) => onElicit(request.params));
  const watcher = new InitializeWatchingTransport(transport, offer);
  const started = Date.now();
  await client.connect(watcher);
  const pid = transport.pid;
  return {
    client,
    transport,
    pid,
    workspace,
    connectMs: Date.now() - started,
    initializeResult: watcher.initializeReply?.result,
    stderr: () => stderr,
    // Closes stdin (the SDK follows with SIGTERM, then SIGKILL, if the server lingers) and returns
    // the child processes that outlived the server by more than five seconds.
    async close() {
      const children = descendants(pid);
      await client.close();
      return survivorsAfter(children, 5000);
    },
  };
}

// The text blocks of a tool result, joined by newlines.
export function textOf(result) {
  return result.content.filter((block) => block.type === "text").map((block) => block.text).join("\n");
}

export function callTool(client, name, args = {}, options = {}) {
  return client.callTool({ name, arguments: args }, undefined, { timeout: 120_000, ...options });
}

export function runCell(client, code, extra = {}, options = {}) {
  return callTool(client, "execute_ipython_cell", { code, ...extra }, options);
}

// Runs a cell that must succeed and returns its text.
export async function runOk(client, code, extra = {}) {
  const result = await runCell(client, code, extra);
  assert.ok(!result.isError, `cell failed:\n${code}\n---\n${textOf(result)}`);
  return textOf(result);
}

// Runs a cell that must fail and returns its text.
export async function runFailing(client, code, extra = {}) {
  const result = await runCell(client, code, extra);
  assert.equal(result.isError, true, `cell should have failed:\n${code}\n---\n${textOf(result)}`);
  return textOf(result);
}

export function everythingParams(env) {
  return { command: "node", args: [EVERYTHING, "stdio"], ...(env ? { env } : {}) };
}

// A pure-Python wheel of one module package, `<name>/__init__.py` defining VALUE, built with
// zipfile (no build backend, no package index): its path.
export function buildWheel(directory, name, version, value) {
  fs.mkdirSync(directory, { recursive: true });
  const wheel = path.join(directory, `${name}-${version}-py3-none-any.whl`);
  execFileSync("/usr/bin/python3", ["-c", `
import sys, zipfile
wheel, name, version, value = sys.argv[1:]
info = f"{name}-{version}.dist-info"
files = {
    f"{name}/__init__.py": f"VALUE = {value!r}\\n",
    f"{info}/METADATA": f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n",
    f"{info}/WHEEL": "Wheel-Version: 1.0\\nGenerator: ipybox-tests\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
files[f"{info}/RECORD"] = "".join(f"{path},,\\n" for path in [*files, f"{info}/RECORD"])
with zipfile.ZipFile(wheel, "w") as archive:
    for path, text in files.items():
        archive.writestr(path, text)
`, wheel, name, version, value]);
  return wheel;
}

// ---- raw JSON lines -----------------------------------------------------------------------------

// `ipybox` on a pipe we write lines to ourselves: for what the SDK client would not send (no
// initialized notification, garbage, unknown methods) or would not show (responses to
// cancelled requests).
export function startRaw({ workspace, stateDir, env = {}, args } = {}) {
  const child = spawn(IPYBOX, args ?? ["mcp", "--workspace", workspace], {
    env: serverEnvironment(stateDir, env),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const messages = [];
  const waiters = [];
  let buffer = "";
  let stderr = "";
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  child.stderr.on("data", (chunk) => { stderr += chunk; });
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (!line.trim()) continue;
      messages.push(JSON.parse(line));  // the server must only ever write JSON lines
      for (const waiter of [...waiters]) waiter();
    }
  });
  const raw = {
    child,
    messages,
    exited,
    stderr: () => stderr,
    sendLine(line) { child.stdin.write(line + "\n"); },
    send(message) { raw.sendLine(JSON.stringify({ jsonrpc: "2.0", ...message })); },
    // The first message received (now or later) that satisfies `predicate`.
    next(predicate, timeoutMs = 30_000, what = "a message") {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(predicate);
          if (!found) return false;
          clearTimeout(timer);
          waiters.splice(waiters.indexOf(check), 1);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(check), 1);
          reject(new Error(`timed out waiting for ${what}; received: ${JSON.stringify(messages)}\nstderr:\n${stderr}`));
        }, timeoutMs);
        waiters.push(check);
        check();
      });
    },
    response(id, timeoutMs) {
      return raw.next((m) => m.id === id && ("result" in m || "error" in m), timeoutMs, `the response to id ${id}`);
    },
    async request(id, method, params, timeoutMs) {
      raw.send({ id, method, ...(params === undefined ? {} : { params }) });
      return raw.response(id, timeoutMs);
    },
    initialize(id = 0, protocolVersion = "2025-11-25") {
      return raw.request(id, "initialize", {
        protocolVersion, capabilities: {}, clientInfo: { name: "raw-json-lines", version: "1.0.0" },
      });
    },
    async stop() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const status = await exited;
      clearTimeout(timer);
      return status;
    },
  };
  return raw;
}
