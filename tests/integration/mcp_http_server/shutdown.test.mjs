// SIGTERM to `ipybox mcp --transport http`: intake stops at once (a new connection is refused), a
// cell being run finishes and is answered within --shutdown-grace, and one that would outlast it
// is cancelled; either way the server exits 143 and none of its processes (the kernel among them)
// is left behind.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";

import {
  Client, IPYBOX, descendants, importPeer, kernelsIn, makeTempDir, removeDir, serverEnvironment,
  sleep, survivorsAfter, waitUntil,
} from "../mcp_server/support.mjs";

const { StreamableHTTPClientTransport } =
  await importPeer("@modelcontextprotocol/sdk", "./client/streamableHttp.js");

async function startServer(t, grace) {
  const workspace = makeTempDir("http-shutdown");
  t.after(() => removeDir(workspace));
  const server = spawn(IPYBOX, ["mcp", "--transport", "http", "--listen", "127.0.0.1:0",
                                "--shutdown-grace", String(grace), "--workspace", workspace],
                       { env: serverEnvironment(workspace), stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  server.stderr.on("data", (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => server.once("exit", (code, signal) => resolve({ code, signal })));
  t.after(() => { if (server.exitCode === null) server.kill("SIGKILL"); });
  const port = await waitUntil(() => stderr.match(/serving MCP over HTTP on http:\/\/127\.0\.0\.1:(\d+)\/mcp/)?.[1],
                               20000, "the server to listen");
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const client = new Client({ name: "shutdown-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url));
  return { server, workspace, url, client, exited, log: () => stderr };
}

const cell = (client, code) =>
  client.callTool({ name: "execute_ipython_cell", arguments: { code } }, undefined, { timeout: 120000 });
const text = (result) => result.content.map((block) => block.text ?? "").join("");

async function refusesNewClients(url) {
  const late = new Client({ name: "late", version: "1.0.0" });
  try {
    await late.connect(new StreamableHTTPClientTransport(url));
    return false;
  } catch {
    return true;
  }
}

test("SIGTERM: a running cell finishes within the grace and is answered; nothing is left", async (t) => {
  const { server, workspace, url, client, exited, log } = await startServer(t, 20);
  assert.equal(text(await cell(client, "print('warm')")), "warm");
  const processes = descendants(server.pid);
  assert.ok(kernelsIn(workspace).length > 0, "a kernel runs");
  const started = Date.now();
  const running = cell(client, "import time\ntime.sleep(2)\nprint('finished')");
  await sleep(500);
  server.kill("SIGTERM");
  await sleep(200);
  assert.ok(await refusesNewClients(url), "intake must stop at SIGTERM");
  assert.equal(text(await running), "finished");
  assert.deepEqual(await exited, { code: 143, signal: null });
  assert.ok(Date.now() - started < 15000, "the server must not wait the whole grace for nothing");
  assert.deepEqual(await survivorsAfter(processes, 5000), [], log());
  assert.deepEqual(kernelsIn(workspace), []);
  assert.match(log(), /waiting up to 20000 ms for 1 request\(s\) being served/);
});

test("SIGTERM: a cell that outlasts the grace is cancelled, and nothing is left", async (t) => {
  const { server, workspace, client, exited, log } = await startServer(t, 1);
  assert.equal(text(await cell(client, "print('warm')")), "warm");
  const processes = descendants(server.pid);
  const started = Date.now();
  const running = cell(client, "import time\ntime.sleep(60)\nprint('too late')").then(
    (result) => ({ result }), (error) => ({ error }));
  await sleep(500);
  server.kill("SIGTERM");
  const outcome = await running;
  assert.ok(!outcome.result || !text(outcome.result).includes("too late"), JSON.stringify(outcome));
  assert.deepEqual(await exited, { code: 143, signal: null });
  assert.ok(Date.now() - started < 20000, `exited after ${Date.now() - started} ms`);
  assert.deepEqual(await survivorsAfter(processes, 5000), [], log());
  assert.deepEqual(kernelsIn(workspace), []);
  assert.match(log(), /1 request\(s\) still running after 1000 ms: cancelling them/);
});
