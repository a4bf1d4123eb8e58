// A scripted stand-in for the Anthropic Messages API, so that the real Claude Code CLI can be
// driven end to end (`claude -p`) without a network or an account.
//
// Usage: node plugin_fake_model.mjs <script.json> <port-file> [<request-log.jsonl>]
//
// The script is {"steps": [...]}. Each request of the main agent loop (one that offers MCP
// tools) is answered with the step whose index is the number of tool results in the
// conversation so far, so a retried request gets the same answer. A step is
//   {"tool": "<full tool name>", "input": {...}, "expect": ["text", ...]}   call a tool, or
//   {"final": "<text>"}                                                      finish.
// "expect" lists substrings the *previous* tool result must contain; when one is missing the
// model stops at once with a text starting "SCRIPT FAILED", which the test then reports. A final
// step's text is followed by every tool result of the conversation, so the test can assert on
// values that only the real tools could have produced. Requests that offer no MCP tools (titles,
// summaries) get a short text answer. The chosen port is written to <port-file> once listening.
import fs from "node:fs";
import http from "node:http";

const [scriptPath, portFile, logPath] = process.argv.slice(2);
if (!scriptPath || !portFile) {
  process.stderr.write("usage: node plugin_fake_model.mjs <script.json> <port-file> [<log.jsonl>]\n");
  process.exit(2);
}
const { steps } = JSON.parse(fs.readFileSync(scriptPath, "utf8"));

function toolResults(messages) {
  const results = [];
  for (const message of messages ?? []) {
    if (message.role !== "user" || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type !== "tool_result") continue;
      const parts = typeof block.content === "string" ? [{ type: "text", text: block.content }] : block.content ?? [];
      const text = parts.filter((part) => part.type === "text").map((part) => part.text).join("\n");
      results.push({ text, isError: block.is_error === true });
    }
  }
  return results;
}

function decide(request) {
  const offersMcpTools = (request.tools ?? []).some((tool) => String(tool.name).startsWith("mcp__"));
  if (!offersMcpTools) return { text: "ok" };
  const results = toolResults(request.messages);
  const step = steps[results.length];
  if (!step) return { text: `SCRIPT FAILED: no step ${results.length} in the script` };
  const previous = results.at(-1);
  for (const expected of step.expect ?? []) {
    if (!previous || !previous.text.includes(expected)) {
      return {
        text: `SCRIPT FAILED at step ${results.length}: the previous tool result lacks ${JSON.stringify(expected)}; ` +
          `it was ${JSON.stringify(previous ?? null)}`,
      };
    }
  }
  if (step.tool) {
    const offered = request.tools.map((tool) => tool.name);
    if (!offered.includes(step.tool)) {
      return { text: `SCRIPT FAILED at step ${results.length}: ${step.tool} is not offered; offered: ${offered.join(", ")}` };
    }
    return { toolUse: { id: `toolu_fake_${results.length}`, name: step.tool, input: step.input ?? {} } };
  }
  const transcript = results.map((result, index) => `[result ${index}${result.isError ? " ERROR" : ""}] ${result.text}`);
  return { text: [step.final, ...transcript].join("\n") };
}

function streamAnswer(response, request, answer) {
  const send = (event, data) => response.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  send("message_start", {
    message: {
      id: `msg_fake_${Date.now()}`, type: "message", role: "assistant", model: request.model ?? "fake-model",
      content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
  if (answer.toolUse) {
    const { id, name, input } = answer.toolUse;
    send("content_block_start", { index: 0, content_block: { type: "tool_use", id, name, input: {} } });
    send("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(input) } });
  } else {
    send("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    send("content_block_delta", { index: 0, delta: { type: "text_delta", text: answer.text } });
  }
  send("content_block_stop", { index: 0 });
  send("message_delta", {
    delta: { stop_reason: answer.toolUse ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  send("message_stop", {});
  response.end();
}

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    const url = new URL(request.url, "http://127.0.0.1");
    if (request.method !== "POST" || url.pathname !== "/v1/messages") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}"); // HEAD /api/hello and any other probe
      return;
    }
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      response.writeHead(400).end();
      return;
    }
    const answer = decide(body);
    if (logPath) fs.appendFileSync(logPath, JSON.stringify({ request: body, answer }) + "\n");
    if (body.stream === false) {
      const content = answer.toolUse
        ? [{ type: "tool_use", ...answer.toolUse }]
        : [{ type: "text", text: answer.text }];
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({
        id: `msg_fake_${Date.now()}`, type: "message", role: "assistant", model: body.model ?? "fake-model", content,
        stop_reason: answer.toolUse ? "tool_use" : "end_turn", stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      }));
      return;
    }
    streamAnswer(response, body, answer);
  });
});

server.listen(0, "127.0.0.1", () => {
  fs.writeFileSync(`${portFile}.tmp`, String(server.address().port));
  fs.renameSync(`${portFile}.tmp`, portFile); // readers never see a half-written file
});
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.close(() => process.exit(0)));
