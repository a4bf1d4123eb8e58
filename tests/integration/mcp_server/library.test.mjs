// The gentools library through `ipybox mcp`: the search_tools tool, a user library shared by two
// projects (and, under --sandbox, readable but not writable by the kernel), the project winning
// a clash, and pins: re-registering server-everything with a changed `echo` names the saved
// action that calls it. Real kernels, the real server-everything, srt for the sandbox case.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import {
  NODE_MODULES, REPO, callTool, everythingParams, makeTempDir, removeDir, runOk, startServer, textOf,
} from "./support.mjs";

const root = makeTempDir("mcp-library");
const dataHome = path.join(root, "data");
const userLibrary = path.join(dataHome, "ipybox", "gentools");
const project1 = path.join(root, "project1");
const project2 = path.join(root, "project2");
const SRT = path.join(NODE_MODULES, ".bin", "srt");
const servers = [];

// An MCP server whose only tool is `echo` with a changed schema (`text`, not `message`).
const CHANGED_ECHO = path.join(REPO, "tests", "support", "changed_echo_server.mjs");

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
  assert.match(textOf(found), /from mcptools\.everything import echo {2}# mcptools\/everything\/echo\.py\n {4}echo\.run\(echo\.Params\(message: str\)\)/);
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
    server_name: "everything", server_params: { command: "node", args: [CHANGED_ECHO] },
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
    server_name: "everything", server_params: { command: "node", args: [CHANGED_ECHO] },
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
    server_name: "everything", server_params: { command: "node", args: [CHANGED_ECHO] },
  });
  assert.doesNotMatch(textOf(unchanged), /schema changed/);
});

test("project 2 finds the user action with search_tools and runs it; a project action wins a clash", async () => {
  const server = await start(project2);
  const found = await callTool(server.client, "search_tools", { query: "shout message" });
  // Saved without save_gentool (no record): the server it imports is named, not its parameters.
  assert.match(textOf(found), /^1\. gentools\.text\.shout {2}\[gentool, user, NOT usable here\]/);
  assert.match(textOf(found), /! MCP server 'everything' is not registered in this project/);
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

let sandboxedServer;  // project3's, started by the first --sandbox test
// What the sandboxed server's client is asked (elicitation), and how it answers.
const asked = [];
let saveAnswer = "accept";

test("under --sandbox the kernel cannot write the user library itself (the control)", async () => {
  assert.ok(fs.existsSync(SRT), "install the npm test peers: npm install --prefix tests/node");
  const sandboxed = path.join(root, "project3");
  fs.mkdirSync(sandboxed);
  const server = sandboxedServer = await startServer({
    workspace: sandboxed, stateDir: root, env: { XDG_DATA_HOME: dataHome, IPYBOX_SRT: SRT },
    args: ["mcp", "--workspace", sandboxed, "--sandbox"],
    capabilities: { elicitation: {} },
    onElicit: (params) => {
      asked.push(params.message);
      return saveAnswer === "accept" ? { action: "accept", content: { approve: true } } : { action: "decline" };
    },
  });
  servers.push(server);
  const direct = path.join(userLibrary, "text", "direct.py");
  const planted = path.join(userLibrary, "planted");
  const text = await runOk(server.client, [
    "from gentools.text.shout import api",
    "print(api.__doc__.splitlines()[0])",
    "import os",
    `for action in [lambda: open(${JSON.stringify(direct)}, "w").write("x"),`,
    `               lambda: os.mkdir(${JSON.stringify(planted)})]:`,
    "    try:",
    "        action()",
    "        print('written')",
    "    except OSError as error:",
    "        print('refused', type(error).__name__)",
    "from ipybox_runtime.gentools import new_gentool",
    "print(new_gentool('text', 'hush').parent.parent.parent.name)",
  ].join("\n"));
  assert.match(text, /^Shouts a message back through the echo tool.\nrefused \w+Error\nrefused \w+Error\nproject3$/);
  assert.equal(fs.existsSync(direct), false);
  assert.equal(fs.existsSync(planted), false);
});

test("under --sandbox new_gentool finds its scaffold wherever ipybox's runtime is installed", async () => {
  // An installation under /tmp, which the sandbox hides unless ipybox shows it: the runtime and
  // the scaffold copied there (a checkout under /tmp failed this way in CI).
  const installed = path.join(root, "installed");
  fs.cpSync(path.join(REPO, "native", "python"), path.join(installed, "python"), { recursive: true });
  fs.cpSync(path.join(REPO, "gentools-template"), path.join(installed, "gentools-template"),
    { recursive: true });
  const workspace = path.join(root, "project6");
  fs.mkdirSync(workspace);
  const server = await start(workspace, ["--sandbox"], {
    IPYBOX_SRT: SRT, IPYBOX_RUNTIME_DIR: path.join(installed, "python"),
  });
  assert.equal(await runOk(server.client,
    "from ipybox_runtime.gentools import new_gentool\nprint(new_gentool('text', 'hum'))"),
  path.join(workspace, "gentools", "text", "hum"));
});

// A finished action handed to ipybox by a sandboxed kernel.
const SAVE_WHISPER = (extra = "", name = "whisper") => `
from ipybox_runtime.gentools import new_gentool
api = '''"""Whispers a message back through the echo tool."""

__all__ = ["run"]


def run(message: str) -> str:
    from . import impl

    return impl.run(message)
'''
impl = '''from mcptools.everything import echo


def run(message: str) -> str:
    return str(echo.run(echo.Params(message=message.lower())))
'''
print(new_gentool("text", "${name}", scope="user", files={"api.py": api, "impl.py": impl}${extra}))`;

test("under --sandbox new_gentool(scope='user') is saved by ipybox and runs at once", async () => {
  const server = sandboxedServer;
  await callTool(server.client, "register_mcp_server",
    { server_name: "everything", server_params: everythingParams() });
  const saved = await runOk(server.client, SAVE_WHISPER());
  assert.equal(saved, path.join(userLibrary, "text", "whisper"));
  // Asked, with the text to be saved, though the policy allows tool calls by default.
  assert.equal(asked.length, 1);
  assert.match(asked[0], /^The code asks to save a code action to your user library/);
  assert.match(asked[0], /\n {2}action: {4}gentools\.text\.whisper\n/);
  assert.match(asked[0], /message\.lower\(\)/);
  assert.match(fs.readFileSync(path.join(saved, "impl.py"), "utf8"), /message\.lower\(\)/);
  assert.equal(await runOk(server.client, "from gentools.text.whisper import run\nprint(run('HI'))"),
    "Echo: hi");
  const found = await callTool(server.client, "search_tools", { query: "whisper a message" });
  assert.match(textOf(found), /^1\. gentools\.text\.whisper {2}\[gentool, user\]/);

  // Saving it again is refused unless overwrite=True is asked for.
  const again = await callTool(server.client, "execute_ipython_cell", { code: SAVE_WHISPER() });
  assert.equal(again.isError, true);
  assert.match(textOf(again), /FileExistsError: .*whisper\/(__init__|api|impl)\.py already exists/);
  assert.equal(await runOk(server.client, SAVE_WHISPER(", overwrite=True")), saved);
});

test("under --sandbox a save is asked by default: declined, nothing is written", async () => {
  const server = sandboxedServer;
  saveAnswer = "decline";
  try {
    const before = asked.length;
    const refused = await callTool(server.client, "execute_ipython_cell",
      { code: SAVE_WHISPER("", "mutter") });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /ApprovalRejectedError: Approval request for the save of gentools\./);
    assert.equal(asked.length, before + 1);
    assert.equal(fs.existsSync(path.join(userLibrary, "text", "mutter")), false);
  } finally {
    saveAnswer = "accept";
  }
});

test("under --sandbox the question shows every file in full, the category's __init__.py too", async () => {
  const server = sandboxedServer;
  saveAnswer = "decline";
  try {
    const before = asked.length;
    // A new category: its __init__.py is written too, and shown. impl.py is 64 KiB of
    // two-byte characters whose last line is what matters.
    const refused = await callTool(server.client, "execute_ipython_cell", { code: `
from ipybox_runtime.gentools import new_gentool
new_gentool("longcat", "long", scope="user",
            files={"api.py": '"""Long."""', "impl.py": "#" + "\u00e9" * 32700 + "\\nimport os; os.system('x')\\n"})` });
    assert.equal(refused.isError, true);
    assert.equal(asked.length, before + 1, textOf(refused));
    const question = asked[asked.length - 1];
    assert.ok(question.includes("    | #" + "\u00e9".repeat(32700) + "\n    | import os; os.system('x')\n"),
      question.slice(-300));
    assert.match(question, /\n {2}the category's __init__\.py, written only where the category has none \(\d+ bytes\):\n {4}\| /);
    assert.equal(fs.existsSync(path.join(userLibrary, "longcat")), false);

    // One byte more than 64 KiB is refused before anyone is asked.
    const large = await callTool(server.client, "execute_ipython_cell", { code: `
from ipybox_runtime.gentools import new_gentool
new_gentool("text", "large", scope="user", files={"api.py": '"""Large."""', "impl.py": "#" * 65537})` });
    assert.equal(large.isError, true);
    assert.match(textOf(large), /larger than 64 KiB/);
    assert.equal(asked.length, before + 1);
  } finally {
    saveAnswer = "accept";
  }
});

test("under --sandbox an allow-all policy still asks about a save (an exact rule allows it, the control)", async () => {
  const workspace = path.join(root, "project7");
  fs.mkdirSync(workspace);
  const policy = path.join(root, "allow-all.json");
  fs.writeFileSync(policy, JSON.stringify({ default: "allow", rules: [{ match: "*", action: "allow" }] }));
  const questions = [];
  const server = await startServer({
    workspace, stateDir: root, env: { XDG_DATA_HOME: dataHome, IPYBOX_SRT: SRT },
    args: ["mcp", "--workspace", workspace, "--sandbox", "--approval-policy", policy],
    capabilities: { elicitation: {} },
    onElicit: (params) => { questions.push(params.message); return { action: "decline" }; },
  });
  servers.push(server);
  const refused = await callTool(server.client, "execute_ipython_cell", { code: SAVE_WHISPER("", "hum") });
  assert.equal(refused.isError, true);
  assert.match(textOf(refused), /ApprovalRejectedError: .*the user declined/);
  assert.equal(questions.length, 1);
  assert.equal(fs.existsSync(path.join(userLibrary, "text", "hum")), false);
});

test("under --sandbox a client that cannot ask gets no save (the control allows it by rule)", async () => {
  const workspace = path.join(root, "project5");
  fs.mkdirSync(workspace);
  const server = await start(workspace, ["--sandbox"], { IPYBOX_SRT: SRT });  // no elicitation
  const refused = await callTool(server.client, "execute_ipython_cell",
    { code: SAVE_WHISPER("", "sigh") });
  assert.equal(refused.isError, true);
  assert.match(textOf(refused), /ApprovalRejectedError: .*cannot ask/);
  assert.equal(fs.existsSync(path.join(userLibrary, "text", "sigh")), false);

  const policy = path.join(root, "allow-save.json");
  fs.writeFileSync(policy, JSON.stringify({ rules: [{ match: "ipybox.save_gentool", action: "allow" }] }));
  const allowed = await start(workspace, ["--sandbox", "--approval-policy", policy], { IPYBOX_SRT: SRT });
  assert.equal(await runOk(allowed.client, SAVE_WHISPER("", "sigh")),
    path.join(userLibrary, "text", "sigh"));
});

test("under --sandbox an approval policy that denies ipybox.save_gentool stops the save", async () => {
  const policy = path.join(root, "deny-save.json");
  fs.writeFileSync(policy, JSON.stringify({ rules: [{ match: "ipybox.save_gentool", action: "deny" }] }));
  const workspace = path.join(root, "project4");
  fs.mkdirSync(workspace);
  const server = await start(workspace, ["--sandbox", "--approval-policy", policy], { IPYBOX_SRT: SRT });
  const refused = await callTool(server.client, "execute_ipython_cell",
    { code: SAVE_WHISPER("", "murmur") });
  assert.equal(refused.isError, true);
  assert.match(textOf(refused), /ApprovalRejectedError: Approval request for the save of gentools\..*denied by the approval policy/);
  assert.equal(fs.existsSync(path.join(userLibrary, "text", "murmur")), false);
});

test("under --sandbox hostile names and links planted in the user library are refused", async () => {
  const server = sandboxedServer;
  const outside = path.join(root, "outside");
  fs.mkdirSync(outside);
  // Planted host-side (as another tool or an unsandboxed session could): a link out of the library.
  fs.symlinkSync(outside, path.join(userLibrary, "planted"));
  const text = await runOk(server.client, [
    "from ipybox_runtime import tool_client",
    "files = {'__init__.py': '', 'api.py': 'A', 'impl.py': 'I'}",
    "for category, name in [('planted', 'x'), ('..', 'x'), ('text', '../../../outside'),",
    "                       ('import', 'x'), ('text', '_hidden'), ('a/b', 'c')]:",
    "    try:",
    "        print('saved', tool_client.save_gentool(category, name, files))",
    "    except Exception as error:",
    "        print(type(error).__name__)",
    "try:",
    "    tool_client.save_gentool('text', 'y', dict(files, **{'../x.py': 'x'}))",
    "except Exception as error:",
    "    print(type(error).__name__)",
  ].join("\n"));
  assert.equal(text, ["PermissionError", ...Array(6).fill("ToolRunnerError")].join("\n"));
  assert.deepEqual(fs.readdirSync(outside), []);
  assert.equal(fs.existsSync(path.join(userLibrary, "text", "y")), false);
});
