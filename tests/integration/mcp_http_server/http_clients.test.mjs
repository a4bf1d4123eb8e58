// `ipybox mcp --transport http` driven by the real TypeScript SDK clients of both eras: the 1.x
// StreamableHTTPClientTransport (MCP 2025-11-25: initialize, Mcp-Session-Id) and the 2.x client
// pinned to MCP 2026-07-28 (server/discover, _meta on every request, no session), one after the
// other and both at once against one server; and a client that leaves mid-cell.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";

import {
  Client, IPYBOX, kernelsIn, makeTempDir, removeDir, serverEnvironment, sleep, waitUntil,
} from "../mcp_server/support.mjs";
import { LegacyHttpTransport, ModernClient, ModernHttpTransport } from "./http_support.mjs";

let server;
let url;
let workspace;
let stateDir;
let stderr = "";

before(async () => {
  workspace = makeTempDir("http-ws");
  stateDir = makeTempDir("http-state");
  server = spawn(IPYBOX, ["mcp", "--transport", "http", "--listen", "127.0.0.1:0",
                          "--workspace", workspace],
                 { env: serverEnvironment(stateDir), stdio: ["ignore", "pipe", "pipe"] });
  server.stderr.on("data", (chunk) => { stderr += chunk; });
  const port = await waitUntil(
    () => stderr.match(/serving MCP over HTTP on http:\/\/127\.0\.0\.1:(\d+)\/mcp/)?.[1],
    20000, "the server to listen");
  url = new URL(`http://127.0.0.1:${port}/mcp`);
});

after(async () => {
  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
  removeDir(workspace);
  removeDir(stateDir);
});

async function legacyClient() {
  const client = new Client({ name: "legacy-test", version: "1.0.0" });
  const transport = new LegacyHttpTransport(url);
  await client.connect(transport);
  return { client, transport };
}

async function modernClient() {
  const client = new ModernClient({ name: "modern-test", version: "2.0.0" },
                                  { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const transport = new ModernHttpTransport(url);
  await client.connect(transport);
  return { client, transport };
}

// SDK 1.x takes (params, resultSchema, options), 2.x (params, options).
const run = (client, code, options) => client instanceof ModernClient
  ? client.callTool({ name: "execute_ipython_cell", arguments: { code } }, options)
  : client.callTool({ name: "execute_ipython_cell", arguments: { code } }, undefined, options);
const text = (result) => result.content.map((block) => block.text ?? "").join("");

test("a 2025-11-25 client (SDK 1.x) initializes a session and runs a cell", async () => {
  const { client, transport } = await legacyClient();
  try {
    assert.equal(client.getServerVersion().name, "ipybox");
    assert.match(transport.sessionId, /^[0-9a-f]{32}$/);
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(tools.includes("execute_ipython_cell"), tools.join(", "));
    assert.equal(text(await run(client, "print(6 * 7)")), "42");
  } finally {
    await transport.terminateSession();
    await client.close();
  }
});

test("a 2026-07-28 client (client 2.x, pinned) runs a cell without a session", async () => {
  const { client, transport } = await modernClient();
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    assert.equal(transport.sessionId, undefined);
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(tools.includes("execute_ipython_cell"), tools.join(", "));
    assert.equal(text(await run(client, "modern_value = 2026; print(modern_value)")), "2026");
    // The implicit kernel keeps its state between stateless requests.
    assert.equal(text(await run(client, "print(modern_value + 1)")), "2027");
  } finally {
    await client.close();
  }
});

test("a 2026-07-28 client asking for progress gets it during a long cell", async () => {
  const { client } = await modernClient();
  try {
    const seen = [];
    const result = await run(client, "import time\nfor i in range(3):\n    print(i, flush=True); time.sleep(1)",
                             { onprogress: (progress) => seen.push(progress), timeout: 60000 });
    assert.equal(text(result), "0\n1\n2");
    assert.ok(seen.length >= 2, JSON.stringify(seen));
    assert.match(seen.at(-1).message, /running; last output: [12]/);
  } finally {
    await client.close();
  }
});

test("both eras at once against one server", async () => {
  const legacy = await legacyClient();
  const modern = await modernClient();
  try {
    const [fromLegacy, fromModern] = await Promise.all([
      run(legacy.client, "print('legacy', sum(range(10)))"),
      run(modern.client, "print('modern', sum(range(5)))"),
    ]);
    assert.equal(text(fromLegacy), "legacy 45");
    assert.equal(text(fromModern), "modern 10");
  } finally {
    await legacy.transport.terminateSession();
    await legacy.client.close();
    await modern.client.close();
  }
});

test("a client that leaves mid-cell has the cell interrupted and the kernel kept", async () => {
  const { client } = await modernClient();
  try {
    const [kernel] = kernelsIn(workspace);
    assert.ok(kernel, "a kernel runs in the workspace");
    // Control: a cell whose client waits runs to its end.
    await run(client, "import time\nfinished_a = False\ntime.sleep(0.5)\nfinished_a = True");
    assert.equal(text(await run(client, "print(finished_a)")), "True");

    const leaving = new AbortController();
    const cell = run(client, "started_b = True\ntime.sleep(60)\nfinished_b = True",
                     { signal: leaving.signal });
    cell.catch(() => {});
    await sleep(1500);  // the cell has started: the kernel was idle and warm
    leaving.abort();
    await assert.rejects(cell);
    // Had the cell gone on, this would wait behind its 60 s (and time out first).
    const afterwards = text(await run(
      client, "print(globals().get('started_b'), globals().get('finished_b'))", { timeout: 20000 }));
    assert.equal(afterwards, "True None");
    assert.ok(kernelsIn(workspace).includes(kernel), "the same kernel still runs");
  } finally {
    await client.close();
  }
});
