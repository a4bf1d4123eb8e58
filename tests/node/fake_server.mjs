// A deliberately misbehaving MCP server for ipybox's integration tests: raw JSON lines, no SDK.
//
// Usage: node fake_server.mjs <mode>
//   well-behaved    answers initialize, tools/list and tools/call
//   crash-on-call   exits with status 3 when a tool is called (after a line on stderr)
//   killed-on-call  kills itself with SIGKILL when a tool is called
//   hang-on-call    never answers tools/call
//   garbage         writes non-JSON and non-JSON-RPC lines on stdout around its answers
//   loose-schema    lists a tool whose enum has an array and an object (typed loosely: Any)
// With FAKE_SERVER_RECORD set, every notifications/cancelled it receives is appended to that file
// (one JSON line of its params).
import fs from "node:fs";
import readline from "node:readline";

const mode = process.argv[2] ?? "well-behaved";
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const noise = () => {
  if (mode !== "garbage") return;
  process.stdout.write("Server starting... (this line is not JSON)\n");
  process.stdout.write('{"not": "a JSON-RPC message"}\n');
  process.stdout.write("{truncated\n");
};

noise();
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (typeof message.method !== "string") return; // responses, error reports
  if (message.method === "notifications/cancelled" && process.env.FAKE_SERVER_RECORD) {
    fs.appendFileSync(process.env.FAKE_SERVER_RECORD, JSON.stringify(message.params) + "\n");
    return;
  }
  const reply = (result) => send({ jsonrpc: "2.0", id: message.id, result });
  switch (message.method) {
    case "initialize":
      noise();
      reply({
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "fake-server", version: "0.0.1" },
      });
      break;
    case "tools/list":
      if (mode === "loose-schema") {
        reply({ tools: [{ name: "pick", inputSchema: { type: "object", properties: { v: { enum: [[1], { a: 1 }] } } } }] });
        break;
      }
      reply({ tools: [{ name: "noop", inputSchema: { type: "object" } }] });
      break;
    case "tools/call":
      if (mode === "crash-on-call") {
        process.stderr.write("fake server: crashing on purpose\n");
        process.exit(3);
      }
      if (mode === "killed-on-call") process.kill(process.pid, "SIGKILL");
      if (mode === "hang-on-call") break;
      noise();
      reply({ content: [{ type: "text", text: "ok" }] });
      break;
    default:
      if (message.id !== undefined) {
        send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
      }
  }
});
