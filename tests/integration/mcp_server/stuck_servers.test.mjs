// MCP servers that never answer cannot wedge `ipybox mcp` (issue 27): registrations wait on
// threads of their own, and notifications/cancelled ends them and the servers behind them. One
// ipybox server serves the file.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, test } from "node:test";

import {
  callTool, descendants, everythingParams, makeTempDir, removeDir, runOk, startServer, textOf,
  waitUntil,
} from "./support.mjs";

const root = makeTempDir("mcp-stuck");
const workspace = path.join(root, "workspace");
let server;
let client;

before(async () => {
  server = await startServer({ workspace, stateDir: root });
  client = server.client;
});

after(async () => {
  const survivors = await server.close();
  removeDir(root);
  assert.deepEqual(survivors, [], "child processes outlived the server");
});

// A stdio "server" that reads its requests and never answers; `marker` names its process. Its
// start-up may wait two minutes: no registration ends on its own during a test.
const stuckParams = (marker) => ({
  command: "sh", args: ["-c", "while read -r line; do :; done", marker], timeouts: { connect: 120 },
});

const stuckServers = (marker) => descendants(server.pid).filter((p) => p.command.includes(marker));

// Starts `count` registrations of stuck servers, cancellable through the returned controllers.
function registerStuck(count, prefix) {
  return Array.from({ length: count }, (_, i) => {
    const controller = new AbortController();
    const call = callTool(client, "register_mcp_server",
      { server_name: `${prefix}${i}`, server_params: stuckParams(`${prefix}-marker-${i}`) },
      { signal: controller.signal, timeout: 300_000 });
    let settled = false;
    call.then(() => { settled = true; }, () => { settled = true; });
    return { controller, call, isSettled: () => settled, marker: `${prefix}-marker-${i}` };
  });
}

test("six stuck registrations (more than the four workers) leave cells and search answering", async () => {
  const stuck = registerStuck(6, "stuck");
  // Control: four of them are running (as many as the workers cells need; the other two wait for
  // a thread of the server work), and none of the six registrations has ended.
  const running = () => stuck.filter((s) => stuckServers(s.marker).length === 1).length;
  await waitUntil(() => running() === 4, 20_000, "four stuck servers to start");
  assert.equal(await runOk(client, "print(6 * 7)"), "42");
  const search = await callTool(client, "search_tools", { query: "anything" });
  assert.ok(!search.isError, textOf(search));
  assert.ok(stuck.every((s) => !s.isSettled()), "a registration ended: the servers were not stuck");
  for (const s of stuck) s.controller.abort("the test cancels");
  await Promise.allSettled(stuck.map((s) => s.call));
  await waitUntil(() => running() === 0, 20_000, "the cancelled registrations to stop their servers");
});

test("notifications/cancelled frees the threads of cancelled registrations for the next ones", async () => {
  const stuck = registerStuck(4, "freed");
  await waitUntil(() => stuck.every((s) => stuckServers(s.marker).length === 1), 20_000,
    "the four stuck servers to start");
  for (const s of stuck) s.controller.abort("the test cancels");
  await Promise.allSettled(stuck.map((s) => s.call));
  // Their servers stop now, not when their two-minute start-up deadline passes.
  await waitUntil(() => stuck.every((s) => stuckServers(s.marker).length === 0), 10_000,
    "the cancelled registrations to stop their servers");
  // All four server threads were held; a registration runs now only if cancelling freed them.
  const result = await callTool(client, "register_mcp_server",
    { server_name: "everything", server_params: everythingParams() }, { timeout: 30_000 });
  assert.ok(!result.isError, textOf(result));
  assert.ok(textOf(result).includes("echo"));
});
