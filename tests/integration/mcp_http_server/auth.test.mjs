// `ipybox mcp --transport http --auth-token-file FILE`: what starts and what is refused, and the
// real 1.x SDK client with and without its bearer token. The token never reaches the log.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import {
  Client, IPYBOX, importPeer, makeTempDir, removeDir, serverEnvironment, waitUntil,
} from "../mcp_server/support.mjs";

const { StreamableHTTPClientTransport } =
  await importPeer("@modelcontextprotocol/sdk", "./client/streamableHttp.js");

function scratch(t) {
  const dir = makeTempDir("http-auth");
  t.after(() => removeDir(dir));
  return dir;
}

function tokenFile(dir, lines, mode) {
  const file = path.join(dir, "tokens");
  fs.writeFileSync(file, lines.join("\n") + "\n");
  fs.chmodSync(file, mode);
  return file;
}

function refusedStart(dir, args) {
  return spawnSync(IPYBOX, ["mcp", "--transport", "http", "--workspace", dir, ...args],
                   { env: serverEnvironment(dir), encoding: "utf8", timeout: 20000 });
}

test("--listen on an address other machines reach needs --auth-token-file", (t) => {
  const dir = scratch(t);
  const without = refusedStart(dir, ["--listen", "0.0.0.0:0"]);
  assert.notEqual(without.status, 0);
  assert.match(without.stderr, /reachable from other machines: give --auth-token-file/);
  // A token file open to others is refused too, saying how to fix it.
  const token = crypto.randomBytes(32).toString("hex");
  const open = refusedStart(dir, ["--listen", "0.0.0.0:0", "--auth-token-file",
                                  tokenFile(dir, [`${token} alice`], 0o644)]);
  assert.notEqual(open.status, 0);
  assert.match(open.stderr, /open to its group or others; it holds secrets: chmod 600/);
  assert.ok(!open.stderr.includes(token));
});

test("with a private token file: the client with its token is served, without it 401", async (t) => {
  const dir = scratch(t);
  const token = crypto.randomBytes(32).toString("hex");
  const file = tokenFile(dir, ["# who may connect", `${token} alice max_kernels=2`], 0o600);
  const server = spawn(IPYBOX, ["mcp", "--transport", "http", "--listen", "0.0.0.0:0",
                                "--auth-token-file", file, "--workspace", dir],
                       { env: serverEnvironment(dir), stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  server.stderr.on("data", (chunk) => { stderr += chunk; });
  t.after(async () => {
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
  });
  const port = await waitUntil(() => stderr.match(/serving MCP over HTTP on http:\/\/0\.0\.0\.0:(\d+)\/mcp/)?.[1],
                               20000, "the server to listen");
  const url = new URL(`http://127.0.0.1:${port}/mcp`);

  const connect = async (headers) => {
    const client = new Client({ name: "auth-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    return client;
  };
  await assert.rejects(connect({}), /401|Unauthorized/);
  await assert.rejects(connect({ Authorization: `Bearer ${"0".repeat(64)}` }), /401|Unauthorized/);
  // The control: the same client with the token runs a cell.
  const client = await connect({ Authorization: `Bearer ${token}` });
  try {
    const result = await client.callTool({ name: "execute_ipython_cell", arguments: { code: "print(6 * 7)" } });
    assert.equal(result.content.map((block) => block.text ?? "").join(""), "42");
  } finally {
    await client.close();
  }
  assert.match(stderr, /bearer tokens required: 1 principal\(s\)/);
  assert.ok(!stderr.includes(token), "the token must never be logged");
});
