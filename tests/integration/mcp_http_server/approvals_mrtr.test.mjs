// Approvals for MCP 2026-07-28 clients over HTTP, as multi round-trip requests: a cell whose
// shell command the policy asks about answers with an input_required result (an elicitation and a
// sealed requestState) while it waits server-side; the retry carrying the answer continues the
// same cell. The real 2.x client fulfils it by itself; raw requests then attack the requestState:
// altered, for another call, for another kernel, replayed, each against the genuine retry.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { kernelsIn } from "../mcp_server/support.mjs";
import { ModernClient, ModernHttpTransport, startHttp as startServer } from "./http_support.mjs";

const VERSION = "2026-07-28";

const startHttp = (t, args = []) => startServer(t, ["--approve-shell-commands", ...args]);

// One 2026-07-28 request by hand: the headers and _meta the revision requires; the answer read
// from a JSON body or from the SSE stream a slower one becomes.
let nextId = 1;
async function post(url, method, params, { elicitation = true } = {}) {
  const id = nextId++;
  const meta = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": elicitation ? { elicitation: {} } : {},
    "io.modelcontextprotocol/clientInfo": { name: "mrtr-test", version: "1.0.0" },
  };
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json", Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": VERSION, "Mcp-Method": method, "Mcp-Name": params.name ?? "",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }),
  });
  const body = await response.text();
  if ((response.headers.get("content-type") ?? "").startsWith("application/json")) {
    return JSON.parse(body);
  }
  for (const line of body.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const message = JSON.parse(line.slice(5));
    if (message.id === id) return message;
  }
  throw new Error(`no answer in ${body}`);
}

const toolCall = (url, args, extra = {}, options) =>
  post(url, "tools/call", { name: "execute_ipython_cell", arguments: args, ...extra }, options);
const text = (result) => (result.content ?? []).map((block) => block.text ?? "").join("");
const accept = { approval: { action: "accept", content: { approve: true } } };

test("the 2.x client answers the approval and the same cell goes on", async (t) => {
  const { url, workspace } = await startHttp(t);
  const asked = [];
  let answer = true;
  const client = new ModernClient({ name: "mrtr", version: "2.0.0" },
                                  { capabilities: { elicitation: {} },
                                    versionNegotiation: { mode: { pin: VERSION } } });
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push(request.params.message);
    return answer ? { action: "accept", content: { approve: true } } : { action: "decline" };
  });
  await client.connect(new ModernHttpTransport(url));
  t.after(() => client.close());
  const run = (code) => client.callTool({ name: "execute_ipython_cell", arguments: { code } },
                                        { timeout: 60000 });
  const approved = await run("before = 1\n!echo approved-run > approved.txt\nprint('after', before)");
  assert.ok(!approved.isError, text(approved));
  assert.match(text(approved), /after 1/);
  assert.ok(fs.existsSync(path.join(workspace, "approved.txt")));
  assert.equal(asked.length, 1);
  assert.match(asked[0], /echo approved-run/);
  // Control: declined, the command does not run, and the cell is told.
  answer = false;
  const declined = await run("!echo declined-run > declined.txt");
  assert.match(text(declined), /declined/);
  assert.ok(!fs.existsSync(path.join(workspace, "declined.txt")));
});

test("a forged, altered, misdirected or replayed requestState is refused; the genuine one works",
     async (t) => {
  const { url, workspace } = await startHttp(t);
  const code = "!echo sealed > sealed.txt";
  const first = (await toolCall(url, { code })).result;
  assert.equal(first.resultType, "input_required", JSON.stringify(first));
  assert.equal(first.inputRequests.approval.method, "elicitation/create");
  assert.match(first.inputRequests.approval.params.message, /echo sealed/);
  const state = first.requestState;
  assert.match(state, /^v1\./);

  const refused = async (extra, args = { code }) => {
    const answer = (await toolCall(url, args, extra)).result;
    assert.equal(answer.isError, true, JSON.stringify(answer));
    return text(answer);
  };
  // One character changed anywhere: not ours.
  const flipped = state.slice(0, 10) + (state[10] === "A" ? "B" : "A") + state.slice(11);
  assert.match(await refused({ inputResponses: accept, requestState: flipped }), /not one ipybox made/);
  assert.match(await refused({ inputResponses: accept, requestState: "v1.e30=.00" }),
               /not one ipybox made/);
  // Not a string, not an object: refused by the protocol layer before any tool sees them.
  assert.equal((await toolCall(url, { code }, { requestState: 5 })).error?.code, -32602);
  assert.equal((await toolCall(url, { code }, { inputResponses: [], requestState: state }))
    .error?.code, -32602);
  // Genuine, but for other arguments.
  assert.match(await refused({ inputResponses: accept, requestState: state },
                             { code: "!echo other > other.txt" }),
               /made for another call/);
  // Genuine, but sent to another kernel.
  const other = (await post(url, "tools/call", { name: "create_kernel", arguments: {} })).result;
  assert.match(await refused({ inputResponses: accept, requestState: state },
                             { code, kernel_id: other.structuredContent.kernel_id }),
               /belongs to another kernel/);
  assert.ok(!fs.existsSync(path.join(workspace, "sealed.txt")), "nothing ran yet");

  // The control: the genuine retry continues the cell.
  const done = (await toolCall(url, { code }, { inputResponses: accept, requestState: state })).result;
  assert.equal(done.resultType, "complete", JSON.stringify(done));
  assert.ok(!done.isError, text(done));
  assert.ok(fs.existsSync(path.join(workspace, "sealed.txt")));
  // Replayed: the cell it named is done.
  assert.match(await refused({ inputResponses: accept, requestState: state }),
               /no cell waits for this requestState/);
});

test("a retry without the answer is asked again; a client without elicitation is refused",
     async (t) => {
  const { url } = await startHttp(t);
  const code = "!echo twice";
  const first = (await toolCall(url, { code })).result;
  const again = (await toolCall(url, { code }, { requestState: first.requestState })).result;
  assert.equal(again.resultType, "input_required");
  assert.notEqual(again.requestState, first.requestState);
  const done = (await toolCall(url, { code }, { inputResponses: accept,
                                               requestState: again.requestState })).result;
  assert.match(text(done), /twice/);
  // Without the capability nobody can be asked: refused at once, saying why.
  const blind = (await toolCall(url, { code: "!echo blind" }, {}, { elicitation: false })).result;
  assert.equal(blind.resultType, "complete");
  assert.match(text(blind), /cannot ask/);
});

test("an unanswered approval is rejected after --approval-wait; meanwhile the kernel says why it waits",
     async (t) => {
  const { url, workspace } = await startHttp(t, ["--approval-wait", "2"]);
  const code = "!echo late > late.txt";
  const first = (await toolCall(url, { code })).result;
  assert.equal(first.resultType, "input_required");
  const busy = (await toolCall(url, { code: "print('queued')" })).result;
  assert.equal(busy.isError, true);
  assert.match(text(busy), /waiting for the user's answer to an approval/);
  await new Promise((resolve) => setTimeout(resolve, 3500));
  // The wait has passed: the command was rejected, the kernel serves again (the control).
  const after = (await toolCall(url, { code: "print('served')" })).result;
  assert.equal(text(after), "served");
  assert.ok(!fs.existsSync(path.join(workspace, "late.txt")));
  const late = (await toolCall(url, { code }, { inputResponses: accept,
                                               requestState: first.requestState })).result;
  assert.equal(late.isError, true);
  assert.match(text(late), /expired/);
});

test("SIGTERM while a cell waits for an answer ends everything", async (t) => {
  const { url, workspace, server, exited } = await startHttp(t);
  const first = (await toolCall(url, { code: "!echo never > never.txt" })).result;
  assert.equal(first.resultType, "input_required");
  assert.ok(kernelsIn(workspace).length >= 1);
  server.kill("SIGTERM");
  assert.equal(await exited, 143);
  assert.deepEqual(kernelsIn(workspace), []);
  assert.ok(!fs.existsSync(path.join(workspace, "never.txt")));
});
