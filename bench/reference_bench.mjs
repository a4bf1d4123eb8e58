// ipybox next to the reference it competes with, ipybox 0.9.2 (Python, from PyPI), in one run:
// the same MCP workload through the same client (the official TypeScript SDK over stdio), rounds
// interleaved (ours, reference, ours, ...) so that the machine's noise hits both alike. Prints a
// Markdown table, ratios (ours/reference) first, and with --json FILE the figures as JSON.
//
//   node bench/reference_bench.mjs --ipybox PATH [--runs 100] [--spawns 5] [--quick] [--json FILE]
//                                  [--venv DIR]   (default .cache/reference-ipybox-0.9.2)
//
// --quick: one spawn, 20 round trips, 2 single resets, one series of back-to-back resets (a
// check that both servers answer every step; its figures are rough). Both servers run on
// loopback only: the reference's tool server and kernel gateway in their local (non-Docker) mode.
// Exit status 1 if a step failed on either server (the table says which, stderr why).
//
// The workload, per server (both servers use the same tool and argument names):
//   spawn -> initialize reply, spawn -> first execute_ipython_cell("pass") result (cold starts)
//   `pass` round trip p50/p99
//   register_mcp_server(server-everything, stdio), then its echo through the generated API:
//   timed inside the kernel, and as a whole cell
//   reset + `pass` with the spare given time (2.5 s); 12 resets back to back (reset + `pass`)
//   RSS and PSS summed over the server's process tree, idle and with the tool server's echo up
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";

import { EVERYTHING, REPO, echoTimingCell, importPeer, options, percentile, summary } from "./node_peers.mjs";
import { awaitExit, treeMemory, treePids } from "./process_tree.mjs";
import { renderTable } from "./reference_table.mjs";
import { ensureReferenceVenv } from "./reference_venv.mjs";

const { Client } = await importPeer("@modelcontextprotocol/sdk", "./client");
const { StdioClientTransport } = await importPeer("@modelcontextprotocol/sdk", "./client/stdio.js");

const quick = process.argv.includes("--quick");
if (quick) process.argv.splice(process.argv.indexOf("--quick"), 1);
const opts = options({
  ipybox: path.join(REPO, "build", "native", "cli", "ipybox"), runs: quick ? 20 : 100,
  spawns: quick ? 1 : 5, resets: quick ? 2 : 5, series: quick ? 1 : 2, json: "", venv: "",
});
const SPARE_TIME_MS = 2500;  // as bench/mcp_server_bench.mjs: the spare comes up between turns
const BLOCK = 10;            // round trips per turn when the two servers take turns
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const root = fs.mkdtempSync(path.join(os.tmpdir(), "ipybox-reference-bench-"));

const reference = opts.venv ? ensureReferenceVenv(opts.venv) : ensureReferenceVenv();
const servers = [
  { key: "ours", command: path.resolve(opts.ipybox),
    args: (workspace) => ["mcp", "--workspace", workspace, "--log-level", "warning"] },
  { key: "reference", command: reference.ipybox,
    args: (workspace) => ["--workspace", workspace, "--log-level", "WARNING"] },
];
const results = { ours: {}, reference: {} };
let failed = false;

async function connect(server, label) {
  const transport = new StdioClientTransport({
    command: server.command, args: server.args(path.join(root, server.key, label)), stderr: "ignore",
    env: { ...process.env, XDG_STATE_HOME: path.join(root, server.key, "state") },
  });
  const client = new Client({ name: "ipybox-reference-bench", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport, { timeout: 120_000 });
  return { client, pid: transport.pid };
}

// Closes the session and waits until the server's whole tree has ended.
async function disconnect(session) {
  const pids = treePids(session.pid);
  await session.client.close();
  await awaitExit(pids);
}

async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
  const text = (result.content ?? []).filter((block) => block.type === "text").map((block) => block.text).join("\n");
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return text;
}

const execute = (client, code, timeout = 120) => call(client, "execute_ipython_cell", { code, timeout, max_output_chars: 100_000 });
const reset = async (client) => { await call(client, "reset", {}); await execute(client, "pass"); };

async function timed(work) {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

// Runs `step(server)` for each server in turn and stores what it returns under results[key][name];
// a failure is stored as such (and reported), the other server's figure still counts.
async function each(name, step) {
  for (const server of servers) {
    try {
      const value = await step(server);
      if (value !== undefined) results[server.key][name] = value;
    } catch (error) {
      failed = true;
      results[server.key][name] = { error: String(error.message ?? error).split("\n")[0] };
      process.stderr.write(`bench: ${server.key}: ${name}: ${error.stack ?? error}\n`);
    }
  }
}

// `work` for each server, in turns of BLOCK samples, until each has `runs` samples.
async function alternating(name, sessions, runs, work) {
  const samples = { ours: [], reference: [] };
  for (let done = 0; done < runs; done += BLOCK) {
    await each(name, async (server) => {
      if (results[server.key][name]?.error) return undefined;
      for (let i = done; i < Math.min(runs, done + BLOCK); ++i) {
        samples[server.key].push(await timed(() => work(sessions[server.key].client)));
      }
      return undefined;
    });
  }
  for (const server of servers) {
    if (!results[server.key][name]?.error) results[server.key][name] = summary(samples[server.key]);
  }
}

async function coldStarts() {
  const initialize = { ours: [], reference: [] };
  const firstResult = { ours: [], reference: [] };
  for (let i = 0; i < opts.spawns; ++i) {
    await each("cold", async (server) => {
      const start = performance.now();
      const session = await connect(server, `cold-${i}`);  // spawn + initialize + initialized
      initialize[server.key].push(performance.now() - start);
      try {
        await execute(session.client, "pass");
        firstResult[server.key].push(performance.now() - start);
      } finally {
        await disconnect(session);
      }
      return undefined;
    });
  }
  for (const server of servers) {
    const mine = results[server.key];
    const error = mine.cold;  // set only when a spawn failed
    delete mine.cold;
    mine.spawn_to_initialize_ms = error ?? percentile(initialize[server.key], 50);
    mine.spawn_to_first_result_ms = error ?? percentile(firstResult[server.key], 50);
  }
}

async function steady(sessions) {
  const memory = (name) => each(name, async (server) => treeMemory(sessions[server.key].pid));
  await each("warm_up", async (server) => {
    for (let i = 0; i < 20; ++i) await execute(sessions[server.key].client, "pass");
  });
  await sleep(SPARE_TIME_MS);
  await memory("tree_idle");
  await alternating("pass", sessions, opts.runs, (client) => execute(client, "pass"));

  const everything = { command: process.execPath, args: [EVERYTHING, "stdio"] };
  await each("register_ms", (server) => timed(() => call(sessions[server.key].client, "register_mcp_server",
                                                          { server_name: "everything", server_params: everything })));
  await each("tool_call_in_kernel", async (server) =>
    JSON.parse(await execute(sessions[server.key].client, echoTimingCell(opts.runs), 600)));
  await alternating("tool_call_cell", sessions, opts.runs,
                    (client) => execute(client, "_ = echo.run(echo.Params(message='x'))"));
  await memory("tree_with_tools");

  const single = { ours: [], reference: [] };
  for (let i = 0; i < opts.resets; ++i) {
    await each("reset_single", async (server) => {
      await execute(sessions[server.key].client, "pass");
      await sleep(SPARE_TIME_MS);
      single[server.key].push(await timed(() => reset(sessions[server.key].client)));
    });
  }
  const backToBack = { ours: [], reference: [] };
  for (let i = 0; i < opts.series; ++i) {
    await each("reset_back_to_back", async (server) => {
      await sleep(SPARE_TIME_MS);  // the other server's last reset has settled
      for (let j = 0; j < 12; ++j) backToBack[server.key].push(await timed(() => reset(sessions[server.key].client)));
    });
  }
  for (const server of servers) {
    const mine = results[server.key];
    if (!mine.reset_single?.error) mine.reset_single = { p50_ms: percentile(single[server.key], 50), runs: single[server.key].length };
    if (!mine.reset_back_to_back?.error) {
      const samples = backToBack[server.key];
      mine.reset_back_to_back = { p50_ms: percentile(samples, 50), p90_ms: percentile(samples, 90), runs: samples.length };
    }
  }
}

const loadAverage = os.loadavg()[0];  // other work on the machine makes every figure noisier
try {
  process.stderr.write(`bench: ${quick ? "quick mode, " : ""}ipybox (${servers[0].command}) and ipybox `
                       + `${reference.versions.ipybox} (${reference.ipybox}), rounds interleaved...\n`);
  await coldStarts();
  const sessions = {};
  await each("connect", async (server) => { sessions[server.key] = await connect(server, "steady"); });
  try {
    if (sessions.ours && sessions.reference) await steady(sessions);
  } finally {
    for (const session of Object.values(sessions)) await disconnect(session);
  }
  const report = {
    date: new Date().toISOString(), quick, runs: opts.runs, spawns: opts.spawns, cores: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? "?", load_average: loadAverage, ours: { binary: servers[0].command, ...results.ours },
    reference: { versions: reference.versions, ...results.reference },
  };
  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(report, null, 1) + "\n");
  process.stdout.write(renderTable(report));
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
