// How many threads `ipybox mcp` runs (issue 22, deliverable 1: one runtime). At rest, with a
// kernel and its spare started and a server registered, it holds at most four; while kernel code
// makes 16 tool calls at once (each a slow tool of server-everything) it holds at most six: a call
// that waits for its approval or its MCP server is a pending callback, not a thread. Counted from
// /proc/<pid>/task, the way a user's `ps -L` would; the control is the same count taken of a
// process known to run more (this test's own node, which runs a pool of its own).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import { callTool, everythingParams, makeTempDir, removeDir, runOk, startServer, textOf, waitUntil } from "./support.mjs";

const threadsOf = (pid) => fs.readdirSync(`/proc/${pid}/task`).length;

let root;
let server;

before(async () => {
  root = makeTempDir("threads");
  const workspace = path.join(root, "workspace");
  fs.mkdirSync(workspace);
  server = await startServer({ workspace, stateDir: path.join(root, "state") });
  const registered = await callTool(server.client, "register_mcp_server",
    { server_name: "everything", server_params: everythingParams() });
  assert.ok(!registered.isError, textOf(registered));
  await runOk(server.client, "print(1 + 1)");
});

after(async () => {
  await server?.close();
  removeDir(root);
});

test("the count is a real one: this test's node runs more than one thread", () => {
  assert.ok(threadsOf(process.pid) > 1);
});

test("at rest, with its kernels started, ipybox mcp runs at most four threads", async () => {
  // Work threads end a couple of seconds after their last work.
  await waitUntil(() => threadsOf(server.pid) <= 4, 20_000, "at most four threads at rest");
});

// The design this replaced held a thread per tool-server request: 20 threads here.
test("while kernel code makes 16 tool calls at once, ipybox mcp runs at most six threads", async () => {
  let most = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      most = Math.max(most, threadsOf(server.pid));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const text = await runOk(server.client, [
    "from concurrent.futures import ThreadPoolExecutor",
    "from mcptools.everything import trigger_long_running_operation as op",
    "def call(i):",
    "    op.run(op.Params(duration=2, steps=2))",
    "    return i",
    "with ThreadPoolExecutor(16) as pool:",
    "    done = sorted(pool.map(call, range(16)))",
    "print(len(done), 'calls done')",
  ].join("\n"));
  sampling = false;
  await sampler;
  assert.match(text, /16 calls done/);
  console.log(`threads of ipybox mcp during 16 concurrent tool calls: at most ${most}`);
  assert.ok(most <= 6, `ipybox mcp ran ${most} threads during 16 concurrent tool calls`);
});
