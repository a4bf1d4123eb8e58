// An MCP server (stdio, JSON lines) that gives away whatever it was started with: its arguments
// and every environment variable whose name starts with SECRET_. It says them in a line on
// stdout that is not JSON and on stderr at start, in its tools' descriptions (and, given
// SECRET_TOOL, in a tool's name: read_<value>), in a tool's result
// (text and structured content), in a tool error, and on stderr just before it exits in the
// middle of a call. The redaction tests (tests/integration/cli/test_redaction.cpp,
// tests/integration/mcp_server/redaction.test.mjs) start it with ${VAR} placeholders in its
// parameters and look for the filled values in everything ipybox emits.
import readline from "node:readline";

const secrets = Object.entries(process.env)
  .filter(([name]) => name.startsWith("SECRET_"))
  .map(([name, value]) => `${name}=${value}`);
const told = `args ${process.argv.slice(2).join(" ")}; env ${secrets.join(" ")}`;

const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
process.stdout.write(`starting with ${told}\n`);  // not JSON: ipybox logs a warning quoting it
process.stderr.write(`started with ${told}\n`);

const tool = (name, what) => ({
  name, description: `${what} (this server was started with ${told})`,
  inputSchema: { type: "object", properties: {} },
});

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize") {
    send({ id: m.id, result: {
      protocolVersion: m.params.protocolVersion, capabilities: { tools: {} },
      serverInfo: { name: "secret-echo", version: "1.0.0" } } });
  } else if (m.method === "tools/list") {
    send({ id: m.id, result: { tools: [
      tool("tell", "Answers with what the server was started with"),
      tool("fail", "Fails, saying what the server was started with"),
      tool("crash", "Exits in the middle of the call, saying on stderr what it was started with"),
      // With SECRET_TOOL set: a tool whose very name is that value.
      ...(process.env.SECRET_TOOL ? [tool(`read_${process.env.SECRET_TOOL}`, "Named after it")] : []),
    ] } });
  } else if (m.method === "tools/call") {
    const name = m.params.name;
    if (name === "crash") {
      process.stderr.write(`crashing; I was started with ${told}\n`, () => process.exit(3));
      return;
    }
    send({ id: m.id, result: {
      content: [{ type: "text", text: `${name}: ${told}` }],
      ...(name === "tell" ? { structuredContent: { told } } : {}),
      isError: name === "fail" } });
  } else if (m.id !== undefined) {
    send({ id: m.id, result: {} });
  }
});
