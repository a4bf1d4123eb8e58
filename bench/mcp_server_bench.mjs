// Measures `ipybox mcp` as an MCP client sees it, with the official TypeScript SDK client over
// stdio, and prints one JSON object:
//   - spawn to initialize reply, spawn to the first execute_ipython_cell result (cold starts)
//   - execute_ipython_cell("pass") round trip, p50/p99
//   - reset to usable (reset, then a `pass` result), with the spare kernel given time to start
//   - resets back to back (reset, `pass`, reset, ...) and a crash (os._exit) to the next result
//   - peak RSS of the ipybox process itself (VmHWM; kernels and MCP servers are other processes)
//   - a tool call through the generated API (kernel -> tool server -> stdio server-everything
//     echo -> back): timed inside the kernel with perf_counter, and as whole execute_ipython_cell
//     round trips; next to the SDK client calling the same server's echo directly
//
//   node bench/mcp_server_bench.mjs --ipybox PATH [--runs 500] [--spawns 5]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";

import { EVERYTHING, REPO, echoTimingCell, importPeer, options, percentile, summary } from "./node_peers.mjs";

const { Client } = await importPeer("@modelcontextprotocol/sdk", "./client");
const { StdioClientTransport } = await importPeer("@modelcontextprotocol/sdk", "./client/stdio.js");

const opts = options({ ipybox: path.join(REPO, "build", "native", "cli", "ipybox"), runs: 500, spawns: 5 });
const root = fs.mkdtempSync(path.join(os.tmpdir(), "ipybox-mcp-bench-"));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function connect(command, args) {
  const transport = new StdioClientTransport({
    command, args, stderr: "ignore", env: { ...process.env, XDG_STATE_HOME: root },
  });
  const client = new Client({ name: "ipybox-bench", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  return { client, transport };
}

function connectIpybox(label) {
  const workspace = path.join(root, label);
  return connect(opts.ipybox, ["mcp", "--workspace", workspace, "--log-level", "warning"]);
}

async function execute(client, code, timeout = 120) {
  const result = await client.callTool({ name: "execute_ipython_cell", arguments: { code, timeout, max_output_chars: 100_000 } },
                                       undefined, { timeout: 600_000 });
  const text = result.content.filter((block) => block.type === "text").map((block) => block.text).join("\n");
  if (result.isError) throw new Error(`execute_ipython_cell failed:\n${text}`);
  return text;
}

async function timed(work) {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function coldStarts() {
  const initialize = [];
  const firstResult = [];
  for (let i = 0; i < opts.spawns; ++i) {
    const start = performance.now();
    const { client } = await connectIpybox(`cold-${i}`);  // spawn + initialize + initialized
    initialize.push(performance.now() - start);
    await execute(client, "pass");
    firstResult.push(performance.now() - start);
    await client.close();
  }
  return { spawn_to_initialize_ms: percentile(initialize, 50), spawn_to_first_result_ms: percentile(firstResult, 50),
           spawns: opts.spawns };
}

async function roundTrips(client, code, runs) {
  for (let i = 0; i < 20; ++i) await execute(client, code);
  const samples = [];
  for (let i = 0; i < runs; ++i) samples.push(await timed(() => execute(client, code)));
  return summary(samples);
}

async function resets(client) {
  const samples = [];
  for (let i = 0; i < 5; ++i) {
    await execute(client, "pass");
    await sleep(2500);  // the spare kernel comes up, as it would between an agent's turns
    samples.push(await timed(async () => {
      await client.callTool({ name: "reset", arguments: {} });
      await execute(client, "pass");
    }));
  }
  return percentile(samples, 50);
}

// Resets as an agent's loop makes them (issue 23): nothing between them but a cell.
async function backToBackResets(client) {
  const samples = [];
  for (let i = 0; i < 12; ++i) {
    samples.push(await timed(async () => {
      await client.callTool({ name: "reset", arguments: {} });
      await execute(client, "pass");
    }));
  }
  return { p50_ms: percentile(samples, 50), p90_ms: percentile(samples, 90) };
}

// From the end of a cell that ended its kernel (os._exit) to the next cell's result.
async function crashRestarts(client) {
  const samples = [];
  for (let i = 0; i < 5; ++i) {
    await sleep(2500);  // the spare is up, as after an agent's turn
    await client.callTool({ name: "execute_ipython_cell", arguments: { code: "import os; os._exit(1)" } });
    samples.push(await timed(() => execute(client, "pass")));
  }
  return percentile(samples, 50);
}

function peakRssMib(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(status.match(/^VmHWM:\s+(\d+) kB/m)[1]) / 1024;
}

async function generatedApiCalls(client, runs) {
  const registered = await client.callTool({
    name: "register_mcp_server",
    arguments: { server_name: "everything", server_params: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
  });
  if (registered.isError) throw new Error(`register_mcp_server failed: ${JSON.stringify(registered)}`);
  const inKernel = JSON.parse(await execute(client, echoTimingCell(runs), 600));
  const perCell = await roundTrips(client, "_ = echo.run(echo.Params(message='x'))", runs);
  return { in_kernel: inKernel, per_cell: perCell };
}

async function directSdkCalls(runs) {
  const { client } = await connect(process.execPath, [EVERYTHING, "stdio"]);
  try {
    const call = () => client.callTool({ name: "echo", arguments: { message: "x" } });
    for (let i = 0; i < 20; ++i) await call();
    const samples = [];
    for (let i = 0; i < runs; ++i) samples.push(await timed(call));
    return summary(samples);
  } finally {
    await client.close();
  }
}

try {
  const report = { runs: opts.runs, ...(await coldStarts()) };
  const { client, transport } = await connectIpybox("steady");
  try {
    await execute(client, "pass");
    report.pass = await roundTrips(client, "pass", opts.runs);
    report.reset_to_usable_ms = await resets(client);
    report.reset_back_to_back = await backToBackResets(client);
    report.crash_restart_ms = await crashRestarts(client);
    report.tool_call = await generatedApiCalls(client, opts.runs);
    report.peak_rss_mib = peakRssMib(transport.pid);
  } finally {
    await client.close();
  }
  report.tool_call.direct_sdk = await directSdkCalls(opts.runs);
  process.stdout.write(JSON.stringify(report) + "\n");
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
