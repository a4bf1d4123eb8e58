// The gentools library through `ipybox mcp`: the search_tools tool, a user library shared by two
// projects (and, under --sandbox, readable but not writable by the kernel), the project winning
// a clash, and pins: re-registering server-everything with a changed `echo` names the saved
// action that calls it. Real kernels, the real server-everything, srt for the sandbox case.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import {
  NODE_MODULES, callTool, everythingParams, makeTempDir, removeDir, runOk, startServer, textOf,
} from "./support.mjs";

const root = makeTempDir("mcp-library");
const dataHome = path.join(root, "data");
const userLibrary = path.join(dataHome, "ipybox", "gentools");
const project1 = path.join(root, "project1");
const project2 = path.join(root, "project2");
const SRT = path.join(NODE_MODULES, ".bin", "srt");
const servers = [];

// An MCP server whose only tool is `echo` with a changed schema (`text`, not `message`).
const CHANGED_ECHO = `
import readline from "node:readline";
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
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
`;

const start = async (workspace, extraArgs = [], env = {}) => {
  const server = await startServer({
    workspace, stateDir: root, env: { XDG_DATA_HOME: dataHome, ...env },
    args: ["mcp", "--workspace", workspace, ...extraArgs],
  });
  servers.push(server);
  return server;
};

before(() => {
  for (const dir of [project1, project2]) fs.mkdirSync(dir);
  fs.writeFileSync(path.join(root, "changed_echo.mjs"), CHANGED_ECHO);
});

after(async () => {
  for (const server of servers) await server.close();
  removeDir(root);
});

// A saved action calling everything.echo, written into `scope` from kernel code.
const SAVE_SHOUT = (scope) => `
from ipybox_runtime.gentools import new_gentool
package = new_gentool("text", "shout", scope=${JSON.stringify(scope)})
(package / "api.py").write_text('''"""Shouts a message back through the echo tool.

Usage: from gentools.text.shout import run; run("hi")
"""

__all__ = ["run"]


def run(message: str) -> str:
    """Echoes message in capitals."""
    from . import impl

    return impl.run(message)
''')
(package / "impl.py").write_text('''from mcptools.everything import echo


def run(message: str) -> str:
    return str(echo.run(echo.Params(message=message.upper())))
''')
print(package)`;

test("search_tools is listed and finds a registered tool by what it does", async () => {
  const server = await start(project1);
  const { tools } = await server.client.listTools();
  const search = tools.find((tool) => tool.name === "search_tools");
  assert.ok(search, "search_tools missing");
  assert.deepEqual(search.inputSchema.required, ["query"]);
  assert.equal(search.annotations.readOnlyHint, true);

  const registered = await callTool(server.client, "register_mcp_server",
    { server_name: "everything", server_params: everythingParams() });
  assert.ok(!registered.isError, textOf(registered));
  const found = await callTool(server.client, "search_tools", { query: "echo back a message", limit: 3 });
  assert.ok(!found.isError, textOf(found));
  const first = textOf(found).split("\n")[0];
  assert.match(first, /^1\. mcptools\.everything\.echo {2}\[mcptool\] {2}Echoes back the input/);
  assert.match(textOf(found), /from mcptools\.everything import echo\n {4}echo\.run\(echo\.Params\(message: str\)\)/);
  const many = await callTool(server.client, "search_tools", { query: "get the sum echo a message", limit: 2 });
  assert.equal(textOf(many).match(/^\d+\. /gm).length, 2, textOf(many));

  const bad = await callTool(server.client, "search_tools", { query: "x", limit: 0 });
  assert.equal(bad.isError, true);
  assert.match(textOf(bad), /"limit" must be an integer from 1 to 50/);
  const missing = await callTool(server.client, "search_tools", {});
  assert.equal(missing.isError, true);
});

test("an action saved to the user library is found, marked user, and runs in project 1", async () => {
  const server = servers[0];
  const saved = await runOk(server.client, SAVE_SHOUT("user"));
  assert.equal(saved, path.join(userLibrary, "text", "shout"));
  const found = await callTool(server.client, "search_tools", { query: "shout a message" });
  assert.match(textOf(found), /^1\. gentools\.text\.shout {2}\[gentool, user\] {2}Shouts a message back/);
  assert.match(textOf(found), /run\(message: str\) -> str/);
  assert.equal(await runOk(server.client, "from gentools.text.shout import run\nprint(run('hi'))"),
    "Echo: HI");
});

test("re-registering a server whose echo schema changed names the action that calls it", async () => {
  const server = servers[0];
  const changed = await callTool(server.client, "register_mcp_server", {
    server_name: "everything", server_params: { command: "node", args: [path.join(root, "changed_echo.mjs")] },
  });
  assert.ok(!changed.isError, textOf(changed));
  assert.match(textOf(changed), /schema changed since they were saved:\n {2}gentools\.text\.shout \(calls everything\.echo\)/);
  const found = await callTool(server.client, "search_tools", { query: "shout" });
  assert.match(textOf(found), /! calls tools whose schema changed: everything\.echo/);
  const catalog = await runOk(server.client,
    "from ipybox_runtime.gentools import catalog; print(catalog())");
  assert.match(catalog, /gentools\.text\.shout +\(user\) .*\[calls changed tools: everything\.echo\]/);

  // Registering again, unchanged, still names it: the pin is what it was written against.
  const again = await callTool(server.client, "register_mcp_server", {
    server_name: "everything", server_params: { command: "node", args: [path.join(root, "changed_echo.mjs")] },
  });
  assert.match(textOf(again), /gentools\.text\.shout \(calls everything\.echo\)/);

  // After reset the fresh kernel still marks it; an edit of the action clears the mark.
  await callTool(server.client, "reset");
  assert.match(textOf(await callTool(server.client, "search_tools", { query: "shout" })),
    /schema changed: everything\.echo/);
  fs.appendFileSync(path.join(userLibrary, "text", "shout", "impl.py"), "# updated for text=\n");
  assert.doesNotMatch(textOf(await callTool(server.client, "search_tools", { query: "shout" })),
    /schema changed/);
  const unchanged = await callTool(server.client, "register_mcp_server", {
    server_name: "everything", server_params: { command: "node", args: [path.join(root, "changed_echo.mjs")] },
  });
  assert.doesNotMatch(textOf(unchanged), /schema changed/);
});

test("project 2 finds the user action with search_tools and runs it; a project action wins a clash", async () => {
  const server = await start(project2);
  const found = await callTool(server.client, "search_tools", { query: "shout message" });
  assert.match(textOf(found), /^1\. gentools\.text\.shout {2}\[gentool, user\]/);
  await callTool(server.client, "register_mcp_server",
    { server_name: "everything", server_params: everythingParams() });
  // The same saved action runs against this project's registration of everything.
  assert.equal(await runOk(server.client, "from gentools.text.shout import run\nprint(run('two'))"),
    "Echo: TWO");
  await runOk(server.client, SAVE_SHOUT("project"));
  const catalog = await runOk(server.client,
    "from ipybox_runtime.gentools import catalog; print(catalog())");
  assert.match(catalog, /gentools\.text\.shout +\(project\)/);
  assert.match(catalog, /clash: gentools\.text\.shout is in several roots; project \(.*\) wins over user/);
});

test("under --sandbox the user library is readable but not writable by the kernel", async () => {
  assert.ok(fs.existsSync(SRT), "install the npm test peers: npm install --prefix tests/node");
  const sandboxed = path.join(root, "project3");
  fs.mkdirSync(sandboxed);
  const server = await start(sandboxed, ["--sandbox"], { IPYBOX_SRT: SRT });
  const text = await runOk(server.client, [
    "from gentools.text.shout import api",
    "print(api.__doc__.splitlines()[0])",
    "from ipybox_runtime.gentools import new_gentool",
    "try:",
    "    new_gentool('text', 'whisper', scope='user')",
    "except PermissionError as error:",
    "    print('refused:', 'scope=' in str(error))",
    "print(new_gentool('text', 'whisper').parent.parent.parent.name)",
  ].join("\n"));
  assert.equal(text, "Shouts a message back through the echo tool.\nrefused: True\nproject3");
  assert.equal(fs.existsSync(path.join(userLibrary, "text", "whisper")), false);
});
