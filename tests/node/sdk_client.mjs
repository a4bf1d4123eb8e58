// Drives an MCP server over stdio with the official TypeScript SDK client and prints a JSON
// summary on stdout. ipybox's integration tests use it to check our server against the reference.
//
// Usage: node sdk_client.mjs <server command> [args...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: "sdk-probe", version: "1.0.0" }, { capabilities: {} });
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const summary = {};
try {
  await client.connect(transport);
  summary.server = client.getServerVersion();
  summary.tools = (await client.listTools()).tools.map((tool) => tool.name);
  summary.echo = await client.callTool({ name: "echo", arguments: { message: "hello" } });
  summary.add = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
  summary.fail = await client.callTool({ name: "fail", arguments: {} });
  const progress = [];
  summary.steps = await client.callTool(
    { name: "steps", arguments: { count: 3 } },
    undefined,
    { onprogress: (update) => progress.push(update.progress) },
  );
  summary.progress = progress;
  try {
    await client.callTool({ name: "no-such-tool", arguments: {} });
  } catch (error) {
    summary.unknown_tool_error = String(error.message ?? error);
  }
  await client.ping();
  summary.ping = true;
} catch (error) {
  summary.error = String(error?.stack ?? error);
} finally {
  await client.close();
}
process.stdout.write(JSON.stringify(summary) + "\n");
