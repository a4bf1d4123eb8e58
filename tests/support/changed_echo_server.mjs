// An MCP server (stdio, JSON lines) whose only tool is server-everything's `echo` with a changed
// schema (`text`, not `message`): re-registering it as "everything" changes that tool's version,
// which the gentools pins tests need (tests/integration/mcp_server/library.test.mjs,
// tests/integration/cli/test_gentools_commands.cpp).
import readline from "node:readline";
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize") send({ jsonrpc: "2.0", id: m.id, result: {
    protocolVersion: m.params.protocolVersion, capabilities: { tools: {} },
    serverInfo: { name: "changed-echo", version: "1.0.0" } } });
  else if (m.method === "tools/list") send({ jsonrpc: "2.0", id: m.id, result: { tools: [{
    name: "echo", description: "Echoes back the input",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }] } });
  else if (m.method === "tools/call") send({ jsonrpc: "2.0", id: m.id, result: {
    content: [{ type: "text", text: "Echo: " + m.params.arguments.text }] } });
  else if (m.id !== undefined) send({ jsonrpc: "2.0", id: m.id, result: {} });
});
