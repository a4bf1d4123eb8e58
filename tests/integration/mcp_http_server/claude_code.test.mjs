// The pinned Claude Code CLI (tests/node) against `ipybox mcp`, in a private HOME:
// - over HTTP, `claude mcp add --transport http NAME URL` then `claude mcp list` shows it
//   ✔ Connected (Claude Code probes with server/discover and speaks 2026-07-28 when offered);
// - over stdio, Claude Code also probes with server/discover and goes 2026-07-28 when it is
//   offered (the control: a scripted stdio server offering it gets tools/list with a modern
//   _meta, no initialize). ipybox's stdio offers only the legacy revisions until it can ask a
//   modern client for approvals (MRTR), so the plugin keeps initialize and elicitation: the
//   server's log shows the handshake.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { IPYBOX, makeTempDir, removeDir, serverEnvironment, waitUntil } from "../mcp_server/support.mjs";
import { makeSandbox, runClaude } from "../../node/plugin_support.mjs";

function listedLine(listed, name) {
  return listed.stdout.split("\n").find((line) => line.startsWith(`${name}: `)) ?? "";
}

async function startHttpServer(t) {
  const workspace = makeTempDir("claude-http-ws");
  const stateDir = makeTempDir("claude-http-state");
  const server = spawn(IPYBOX, ["mcp", "--transport", "http", "--listen", "127.0.0.1:0",
                                "--workspace", workspace],
                       { env: serverEnvironment(stateDir), stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  server.stderr.on("data", (chunk) => { stderr += chunk; });
  t.after(async () => {
    if (server.exitCode === null) {
      server.kill("SIGTERM");
      await new Promise((resolve) => server.once("exit", resolve));
    }
    removeDir(workspace);
    removeDir(stateDir);
  });
  const port = await waitUntil(
    () => stderr.match(/serving MCP over HTTP on http:\/\/127\.0\.0\.1:(\d+)\/mcp/)?.[1],
    20000, "the server to listen");
  return { url: `http://127.0.0.1:${port}/mcp`, log: () => stderr };
}

test("claude mcp add --transport http and claude mcp list: ✔ Connected to ipybox over HTTP", async (t) => {
  const sandbox = makeSandbox(t, "http-list");
  const server = await startHttpServer(t);
  const added = runClaude(sandbox, ["mcp", "add", "--transport", "http", "ipybox-http", server.url]);
  assert.equal(added.status, 0, added.description);
  const listed = runClaude(sandbox, ["mcp", "list"]);
  assert.equal(listed.status, 0, listed.description);
  assert.match(listedLine(listed, "ipybox-http"), /\(HTTP\) - ✔ Connected/, listed.description);
  // Control: the same entry pointing at a port nobody listens on is not connected.
  const deadPort = new URL(server.url);
  deadPort.port = "1";
  assert.equal(runClaude(sandbox, ["mcp", "add", "--transport", "http", "nobody", deadPort.href]).status, 0);
  const withDead = runClaude(sandbox, ["mcp", "list"]);
  assert.match(listedLine(withDead, "nobody"), /Failed/, withDead.description);
  assert.match(listedLine(withDead, "ipybox-http"), /✔ Connected/, withDead.description);
});

// A stdio MCP server that records every line it reads and offers 2026-07-28 in server/discover.
const RECORDING_SERVER = `
const fs = require("node:fs");
const readline = require("node:readline");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  fs.appendFileSync(process.env.RECORD, line + "\\n");
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  const results = {
    "server/discover": { supportedVersions: ["2026-07-28", "2025-11-25"], capabilities: { tools: {} },
                         resultType: "complete" },
    "initialize": { protocolVersion: "2025-11-25", capabilities: { tools: {} },
                    serverInfo: { name: "recorder", version: "0" } },
    "tools/list": { tools: [], resultType: "complete" },
  };
  const result = results[message.method];
  const answer = result ? { jsonrpc: "2.0", id: message.id, result }
                        : { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no" } };
  process.stdout.write(JSON.stringify(answer) + "\\n");
});
`;

test("over stdio Claude Code goes 2026-07-28 when offered; ipybox's stdio keeps it on initialize", async (t) => {
  const sandbox = makeSandbox(t, "stdio-era");
  const scratch = makeTempDir("claude-stdio");
  t.after(() => removeDir(scratch));
  // The control: a server offering 2026-07-28 over stdio is spoken to in it, without initialize.
  const recorder = path.join(scratch, "recorder.cjs");
  const record = path.join(scratch, "record.jsonl");
  fs.writeFileSync(recorder, RECORDING_SERVER);
  assert.equal(runClaude(sandbox, ["mcp", "add", "recorder", "-e", `RECORD=${record}`, "--",
                                   process.execPath, recorder]).status, 0);
  // ipybox over stdio, its log kept through a shell redirection.
  const workspace = makeTempDir("claude-stdio-ws");
  const stateDir = makeTempDir("claude-stdio-state");
  t.after(() => { removeDir(workspace); removeDir(stateDir); });
  const serverLog = path.join(scratch, "ipybox.log");
  const launcher = path.join(scratch, "ipybox-mcp.sh");
  fs.writeFileSync(launcher, `#!/bin/sh\nXDG_STATE_HOME='${stateDir}' exec '${IPYBOX}' mcp ` +
                             `--workspace '${workspace}' --log-level info 2>>'${serverLog}'\n`, { mode: 0o755 });
  assert.equal(runClaude(sandbox, ["mcp", "add", "ipybox-stdio", "--", launcher]).status, 0);

  const listed = runClaude(sandbox, ["mcp", "list"]);
  assert.equal(listed.status, 0, listed.description);
  assert.match(listedLine(listed, "recorder"), /✔ Connected/, listed.description);
  assert.match(listedLine(listed, "ipybox-stdio"), /✔ Connected/, listed.description);

  const methods = fs.readFileSync(record, "utf8").trim().split("\n").map((line) => JSON.parse(line));
  assert.equal(methods[0].method, "server/discover");
  assert.ok(!methods.some((message) => message.method === "initialize"), JSON.stringify(methods));
  const listing = methods.find((message) => message.method === "tools/list");
  assert.equal(listing?.params?._meta?.["io.modelcontextprotocol/protocolVersion"], "2026-07-28");

  const log = await waitUntil(() => {
    const text = fs.existsSync(serverLog) ? fs.readFileSync(serverLog, "utf8") : "";
    return /initialized \(MCP [0-9-]+/.test(text) ? text : null;
  }, 20000, "ipybox to log the handshake");
  assert.match(log, /client claude-code \S+ initialized \(MCP 2025-11-25, requested 2025-11-25\)/, log);
});
