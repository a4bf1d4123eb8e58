// One MCP session with `ipybox mcp` as users start it from the wheel (the command comes from
// wheel.test.sh: uvx from a local index, in a clean environment): initialize, the tools, a cell
// that reports which Python the kernel runs on, an MCP server registered and one of its tools
// called through the generated API. Prints a JSON line of what it saw and how long each step took.
//
//   node wheel_session.mjs <workspace> <server-everything index.js> <command> [args...]
import assert from "node:assert/strict";

import { resultText, withMcpClient } from "../../node/plugin_mcp_client.mjs";

const [workspace, everything, command, ...args] = process.argv.slice(2);
const report = {};
const since = (start) => Date.now() - start;

let started = Date.now();
await withMcpClient({ command, args, env: process.env, cwd: workspace }, async (client) => {
  report.initialize_ms = since(started);
  const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
  assert.deepEqual(tools, ["execute_ipython_cell", "install_package", "register_mcp_server", "reset", "search_tools"]);
  const call = async (name, parameters) =>
    resultText(await client.callTool({ name, arguments: parameters }, undefined, { timeout: 180_000 }));

  started = Date.now();
  const seen = await call("execute_ipython_cell", {
    code: [
      "import importlib.util, json, sys, ipykernel, pydantic",
      "print(json.dumps({'executable': sys.executable, 'prefix': sys.prefix, 'ipykernel': ipykernel.__file__,",
      "    'pydantic': pydantic.VERSION, 'dist_packages': [p for p in sys.path if 'dist-packages' in p],",
      "    'pip': importlib.util.find_spec('pip') is not None, 'answer': 6 * 7}))",
    ].join("\n"),
  });
  report.first_cell_ms = since(started);
  report.kernel = JSON.parse(seen.trim().split("\n").pop());

  started = Date.now();
  const registered = await call("register_mcp_server", {
    server_name: "everything",
    server_params: { command: process.execPath, args: [everything, "stdio"] },
  });
  // The first session lists the tools; a later one in the same workspace (warm, the plots extra)
  // registers the same schemas again and is told they are unchanged.
  assert.match(registered, /^get_sum$|^mcptools\.everything: 13 tools, unchanged since the last registration/m);
  const summed = await call("execute_ipython_cell", {
    code: "from mcptools.everything import get_sum\nprint(get_sum.run(get_sum.Params(a=2, b=3)))",
  });
  report.tool_call = summed.trim();
  report.register_and_call_ms = since(started);
});
console.log(JSON.stringify(report));
