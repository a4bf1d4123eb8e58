// Approvals in `ipybox mcp`: the --approval-policy (allow / deny / ask through MCP elicitation)
// for tool calls from kernel code, and --approve-shell-commands for !cmd and %%bash, against the
// real server-everything and a real SDK client that answers elicitations.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";

import {
  IPYBOX, REPO, callTool, everythingParams, makeTempDir, removeDir, runFailing, runOk, startRaw, startServer,
  textOf,
} from "./support.mjs";

const root = makeTempDir("mcp-approvals");
after(() => removeDir(root));

let counter = 0;

// A server with its own workspace; `answers` are the user's replies to elicitations, in order
// (true accepts, false declines); every elicitation message is recorded in `asked`.
async function serverWith({ policy, shell = false, answers = [], elicitation = true } = {}) {
  const dir = path.join(root, `case-${++counter}`);
  const workspace = path.join(dir, "workspace");
  fs.mkdirSync(workspace, { recursive: true });
  const args = ["mcp", "--workspace", workspace];
  if (policy) {
    const file = path.join(dir, "policy.json");
    fs.writeFileSync(file, JSON.stringify(policy));
    args.push("--approval-policy", file);
  }
  if (shell) args.push("--approve-shell-commands");
  const asked = [];
  const server = await startServer({
    workspace, stateDir: dir, args,
    capabilities: elicitation ? { elicitation: {} } : {},
    onElicit: elicitation
      ? (params) => {
        asked.push(params.message);
        const approve = answers.shift() ?? false;
        return approve ? { action: "accept", content: { approve: true } } : { action: "decline" };
      }
      : undefined,
  });
  return { ...server, asked, workspace };
}

const ECHO = "from mcptools.everything import echo\nprint(echo.run(echo.Params(message='hi')))";

async function registerEverything(client) {
  const result = await callTool(client, "register_mcp_server",
    { server_name: "everything", server_params: everythingParams() });
  assert.ok(!result.isError, textOf(result));
}

test("a deny rule rejects the call in the kernel before the tool runs", async () => {
  const server = await serverWith({ policy: { rules: [{ match: "everything.echo", action: "deny" }] } });
  try {
    await registerEverything(server.client);
    const text = await runFailing(server.client, ECHO);
    assert.match(text, /ApprovalRejectedError: Approval request for everything\.echo rejected: denied by the approval policy/);
    assert.deepEqual(server.asked, []);
  } finally {
    await server.close();
  }
});

test("an ask rule asks the user through elicitation: accepted runs, declined is rejected", async () => {
  const server = await serverWith({ policy: { default: "ask" }, answers: [true, false] });
  try {
    await registerEverything(server.client);
    assert.equal(await runOk(server.client, ECHO), "Echo: hi");
    const text = await runFailing(server.client, ECHO);
    assert.match(text, /ApprovalRejectedError: .*everything\.echo rejected: the user declined/);
    assert.equal(server.asked.length, 2);
    assert.equal(server.asked[0], [
      "The code asks to call an MCP tool.",
      "  server:    everything",
      "  tool:      echo",
      "  arguments: 1",
      '    message = "hi"',
    ].join("\n"));
  } finally {
    await server.close();
  }
});

test("a hostile tool name reaches the elicitation escaped, in a layout it cannot imitate", async () => {
  const server = await serverWith({ policy: { default: "ask" }, answers: [false] });
  try {
    const registered = await callTool(server.client, "register_mcp_server", {
      server_name: "hostile",
      server_params: { command: "node", args: [path.join(REPO, "tests", "support", "hostile_names_server.mjs")] },
    });
    assert.ok(!registered.isError, textOf(registered));
    const text = await runOk(server.client, [
      "from ipybox_runtime import tool_client",
      "name = 'upload_key\\x1b[2J\\x1b[H\\x1b[8m\\rApprove fs.read_file(path=\"README.md\")? [Y/n] \\x1b[28m'",
      "try:",
      "    tool_client.call_tool('hostile', name, {'path\\n  server:    fs\\u202e': '/home/u/.ssh/id_rsa'})",
      "except Exception as error:",
      "    print(type(error).__name__)",
    ].join("\n"));
    assert.equal(text, "ApprovalRejectedError");
    assert.equal(server.asked.length, 1);
    const lines = server.asked[0].split("\n");
    assert.equal(lines[0], "The code asks to call an MCP tool.");
    assert.equal(lines[1], "  server:    hostile");
    assert.match(lines[2], /^ {2}tool: {6}upload_key_\w+_28m {2}\(the server's name: "upload_key\\x1b\[2J\\x1b\[H\\x1b\[8m\\rApprove fs\.read_file\(path=\\"README\.md\\"\)\? \[Y\/n\] \\x1b\[28m"\)$/);
    assert.deepEqual(lines.slice(3), ["  arguments: 1", '    "path\\n  server:    fs\\u202e" = "/home/u/.ssh/id_rsa"']);
    // Nothing raw: no control character, no bidi override, in the message.
    assert.doesNotMatch(server.asked[0], /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    // stderr, where ipybox quotes the server's stdout that is not JSON, holds no escape either.
    assert.equal(server.stderr().includes("\u001b"), false);
    assert.match(server.stderr(), /\\x1b\[2J\\x1b\]52;c;cm0gLXJmIH4=\\x07\\u009b31m not JSON/);
  } finally {
    await server.close();
  }
});

test("an ask rule with a client that cannot elicit rejects and says why", async () => {
  const server = await serverWith({ policy: { default: "ask" }, elicitation: false });
  try {
    await registerEverything(server.client);
    const text = await runFailing(server.client, ECHO);
    assert.match(text, /this MCP client cannot ask \(it does not support elicitation\)/);
  } finally {
    await server.close();
  }
});

test("--approve-shell-commands asks before a shell command runs, showing the expanded command", async () => {
  const server = await serverWith({ shell: true, answers: [true, false] });
  try {
    const output = await runOk(server.client, "who = 'agent'\n!echo hello {who}");
    assert.equal(output.trim(), "hello agent");
    const text = await runFailing(server.client, "!touch marker");
    assert.match(text, /ApprovalRejectedError: Approval request for the shell command rejected/);
    assert.equal(fs.existsSync(path.join(server.workspace, "marker")), false);
    assert.deepEqual(server.asked, [
      "The code asks to run a shell command:\n    | echo hello agent",
      "The code asks to run a shell command:\n    | touch marker",
    ]);
  } finally {
    await server.close();
  }
});

test("the policy's own rules come first; unmatched shell cells are still asked about", async () => {
  const server = await serverWith({
    shell: true,
    policy: { rules: [{ match: "ipybox.shell", action: "allow" }] },
    answers: [true],
  });
  try {
    assert.equal((await runOk(server.client, "!echo allowed")).trim(), "allowed");
    assert.deepEqual(server.asked, []);
    assert.equal((await runOk(server.client, "%%bash\necho cell")).trim(), "cell");
    assert.deepEqual(server.asked, ['The code asks to run a cell with "bash":\n    | echo cell\n    | ']);
  } finally {
    await server.close();
  }
});

test("without --approve-shell-commands shell commands run without asking", async () => {
  const server = await serverWith({ policy: { default: "ask" } });
  try {
    assert.equal((await runOk(server.client, "!echo free")).trim(), "free");
    assert.deepEqual(server.asked, []);
  } finally {
    await server.close();
  }
});

test("register_mcp_server refuses the reserved name ipybox", async () => {
  const server = await serverWith({ shell: true });
  try {
    const result = await callTool(server.client, "register_mcp_server",
      { server_name: "ipybox", server_params: everythingParams() });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /reserved/);
  } finally {
    await server.close();
  }
});

// ---- policies that fail closed and never miss silently ------------------------------------------

const GET_ENV = "from mcptools.everything import get_env\nprint(type(get_env.run(get_env.Params())).__name__)";

test("a deny rule written with the generated Python name (get_env) denies the MCP tool get-env", async () => {
  const server = await serverWith({ policy: { rules: [{ match: "everything.get_env", action: "deny" }] } });
  try {
    await registerEverything(server.client);
    const text = await runFailing(server.client, GET_ENV);
    assert.match(text, /ApprovalRejectedError: Approval request for everything\.get-env rejected: denied by the approval policy/);
  } finally {
    await server.close();
  }
  // Control: the same call with a rule for another tool runs.
  const control = await serverWith({ policy: { rules: [{ match: "everything.echo", action: "deny" }] } });
  try {
    await registerEverything(control.client);
    await runOk(control.client, GET_ENV);
  } finally {
    await control.close();
  }
});

test("a policy with a misspelt key refuses to start and names the key; the right spelling starts", async () => {
  const dir = path.join(root, `case-${++counter}`);
  const workspace = path.join(dir, "workspace");
  fs.mkdirSync(workspace, { recursive: true });
  const file = path.join(dir, "policy.json");
  fs.writeFileSync(file, JSON.stringify({ defualt: "deny" }));
  const raw = startRaw({ workspace, stateDir: dir, args: ["mcp", "--workspace", workspace, "--approval-policy", file] });
  const { code } = await raw.exited;
  assert.equal(code, 2);
  assert.match(raw.stderr(), /unknown key "defualt" in the approval policy/);
  assert.deepEqual(raw.messages, []);

  const control = await serverWith({ policy: { default: "deny" } });
  try {
    await registerEverything(control.client);
    assert.match(await runFailing(control.client, ECHO), /denied by the approval policy/);
  } finally {
    await control.close();
  }
});

test("register_mcp_server reports rules that match none of the registered tools", async () => {
  const server = await serverWith({ policy: { rules: [
    { match: "everything.get_env", action: "deny" },
    { match: "evrything.echo", action: "deny" },
  ] } });
  try {
    const result = await callTool(server.client, "register_mcp_server",
      { server_name: "everything", server_params: everythingParams() });
    assert.ok(!result.isError, textOf(result));
    const text = textOf(result);
    assert.match(text, /these rules match none of the tools of the registered servers/);
    assert.match(text, /rules\[1\] "evrything\.echo" \(deny\)/);
    assert.doesNotMatch(text, /rules\[0\]/);  // the Python name of get-env is a match
  } finally {
    await server.close();
  }

  // ipybox doctor --approval-policy: the same, from the registry the server left behind.
  const dir = path.dirname(server.workspace);
  const doctor = (file) => spawnSync(IPYBOX, ["doctor", "--approval-policy", file, "--workspace", server.workspace],
    { env: { ...process.env, XDG_STATE_HOME: dir }, encoding: "utf8" });
  const report = doctor(path.join(dir, "policy.json"));
  assert.equal(report.status, 0, report.stdout + report.stderr);
  assert.match(report.stdout, /valid, default allow, 2 rule\(s\)/);
  assert.match(report.stdout, /rules\[0\] "everything\.get_env" \(deny\)\n\s+everything\.get-env \(Python: everything\.get_env\)\n/);
  assert.match(report.stdout, /rules\[1\] "evrything\.echo" \(deny\)\n\s+covers NO tool/);
  const misspelt = path.join(dir, "misspelt.json");
  fs.writeFileSync(misspelt, JSON.stringify({ rules: [{ match: "everything.*", acton: "deny" }] }));
  const invalid = doctor(misspelt);
  assert.equal(invalid.status, 2);
  assert.match(invalid.stdout, /INVALID: unknown key "acton" in rules\[0\]/);
});
