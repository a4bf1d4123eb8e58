// What the HTTP tests share: the real SDK clients of both eras (1.x's Streamable HTTP transport
// for 2025-11-25, @modelcontextprotocol/client 2.x for 2026-07-28) from tests/node, and a server
// of the test's own.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { spawn } from "node:child_process";

import {
  Client, IPYBOX, NODE_MODULES, importPeer, makeTempDir, removeDir, serverEnvironment, waitUntil,
} from "../mcp_server/support.mjs";

export const { StreamableHTTPClientTransport: LegacyHttpTransport } =
  await importPeer("@modelcontextprotocol/sdk", "./client/streamableHttp.js");
const modernPackage = JSON.parse(fs.readFileSync(
  path.join(NODE_MODULES, "@modelcontextprotocol", "client", "package.json"), "utf8"));
assert.match(modernPackage.version, /^2\./, "tests/node must hold @modelcontextprotocol/client 2.x");
export const { Client: ModernClient, StreamableHTTPClientTransport: ModernHttpTransport } =
  await import(pathToFileURL(path.join(NODE_MODULES, "@modelcontextprotocol", "client",
                                       modernPackage.exports["."].import.default)).href);

// Starts a server on a free loopback port; stopped (SIGTERM, awaited) after the test.
export async function startHttp(t, args = [], tokens = null, env = {}) {
  const dir = makeTempDir("http-server");
  const workspace = path.join(dir, "ws");
  fs.mkdirSync(workspace);
  const extra = [];
  if (tokens) {
    const file = path.join(dir, "tokens");
    fs.writeFileSync(file, tokens.join("\n") + "\n", { mode: 0o600 });
    extra.push("--auth-token-file", file);
  }
  const server = spawn(IPYBOX, ["mcp", "--transport", "http", "--listen", "127.0.0.1:0",
                                "--workspace", workspace, ...extra, ...args],
                       { env: serverEnvironment(dir, env), stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  server.stderr.on("data", (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => server.once("exit", (code) => resolve(code)));
  t.after(async () => {
    server.kill("SIGTERM");
    await exited;
    removeDir(dir);
  });
  const port = await waitUntil(
    () => stderr.match(/serving MCP over HTTP on http:\/\/127\.0\.0\.1:(\d+)\/mcp/)?.[1],
    20000, "the server to listen");
  return { server, workspace, exited, url: new URL(`http://127.0.0.1:${port}/mcp`),
           log: () => stderr };
}

// Clients of both eras closed after the test, and the calls the tests make with them.
export async function legacy(t, url, token) {
  const client = new Client({ name: "handles-test", version: "1.0.0" });
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
  await client.connect(new LegacyHttpTransport(url, { requestInit }));
  t.after(() => client.close());
  return client;
}

export async function modern(t, url) {
  const client = new ModernClient({ name: "handles-modern", version: "2.0.0" },
                                  { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new ModernHttpTransport(url));
  t.after(() => client.close());
  return client;
}

export const text = (result) => result.content.map((block) => block.text ?? "").join("");
// SDK 1.x takes (params, resultSchema, options), 2.x (params, options).
export const call = (client, name, args = {}) => client instanceof ModernClient
  ? client.callTool({ name, arguments: args }, { timeout: 120000 })
  : client.callTool({ name, arguments: args }, undefined, { timeout: 120000 });
export const cell = (client, code, kernelId) =>
  call(client, "execute_ipython_cell", kernelId ? { code, kernel_id: kernelId } : { code });

export async function created(client, args = {}) {
  const result = await call(client, "create_kernel", args);
  assert.ok(!result.isError, text(result));
  assert.match(result.structuredContent.kernel_id, /^[0-9a-f]{32}$/);
  return result.structuredContent;
}
