// register_mcp_server, the generated API used from kernel code, reset, and the workspace .env,
// against the real server-everything and server-filesystem from npm (stdio). One ipybox server
// serves the file; its workspace has a .env and its environment sets a few variables.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import {
  FILESYSTEM, NODE_DIR, callTool, descendants, everythingParams, listTree, makeTempDir, removeDir, runCell,
  runFailing, runOk, startServer, textOf,
} from "./support.mjs";

const root = makeTempDir("mcp-register");
const workspace = path.join(root, "workspace");
const fsRoot = path.join(root, "fsroot");
const SECRET = "s3cret-from-dotenv-7431";
let server;
let client;

before(async () => {
  fs.mkdirSync(workspace);
  fs.mkdirSync(fsRoot);
  fs.writeFileSync(path.join(fsRoot, "hello.txt"), "hello fs\n");
  fs.writeFileSync(path.join(workspace, ".env"), [
    "# a comment",
    "KERNEL_ENV_FROM_DOTENV=dotenv-value",
    "KERNEL_ENV_IN_BOTH=from-dotenv",
    `SERVER_SECRET=${SECRET}`,
    "ONLY_IN_DOTENV=plain",
    "",
  ].join("\n"));
  server = await startServer({
    workspace, stateDir: root,
    env: { KERNEL_ENV_IN_BOTH: "from-real-environment", IPYBOX_TEST_HOST_ONLY: "host-only" },
  });
  client = server.client;
});

after(async () => {
  const survivors = await server.close();
  removeDir(root);
  assert.deepEqual(survivors, [], "child processes (kernels, MCP servers) outlived the server");
});

const register = (name, params) => callTool(client, "register_mcp_server", { server_name: name, server_params: params });

// ---- registering and calling ---------------------------------------------------------------------

test("register_mcp_server generates mcptools/<name>/ and answers one line per tool: its call and summary", async () => {
  const result = await register("everything", everythingParams());
  assert.ok(!result.isError, textOf(result));
  const lines = textOf(result).trim().split("\n");
  assert.match(lines[0], /^mcptools\.everything: \d+ tools/);
  for (const name of ["echo", "get_sum", "get_tiny_image", "get_structured_content"]) {
    assert.ok(lines.includes(name), `${name} missing from ${lines}`);  // one name a line, as the reference
    assert.ok(fs.existsSync(path.join(workspace, "mcptools", "everything", `${name}.py`)), `${name}.py`);
  }
  // Enough to call a tool without reading its module: the parameters' types, the result's fields.
  // The result most of them share is named once; the others' are on their lines.
  assert.match(lines[0], /; each returns TextResult \(the text, a str\) unless shown$/);
  assert.ok(lines.some((line) => /^ {2}Params\(message: str\)  # Echo/.test(line)), lines.join("\n"));
  assert.ok(lines.some((line) => /^ {2}Params\(location: .*\) -> Result\(.*temperature: float/.test(line)), lines.join("\n"));
  assert.ok(fs.existsSync(path.join(workspace, "mcptools", "everything", "__init__.py")));
  // The same tools again: one line, not the list the agent has had.
  const again = textOf(await register("everything", everythingParams()));
  assert.match(again, /^mcptools\.everything: \d+ tools, unchanged since the last registration/);
  assert.doesNotMatch(again, /^echo$/m);
});

test("register_mcp_server says which parts of a schema the API types more loosely than the schema", async () => {
  const fake = path.join(NODE_DIR, "fake_server.mjs");
  const result = await register("loose", { command: "node", args: [fake, "loose-schema"] });
  assert.ok(!result.isError, textOf(result));
  assert.match(textOf(result), /^mcptools\.loose: 1 tool; .*\npick\n {2}Params\(.*\n\nTyped more loosely than the schema \(the value is sent as given\):\n- pick: Params\.v: /);
  // Control: a server whose schemas are all typed faithfully gets no such section.
  assert.doesNotMatch(textOf(await register("everything", everythingParams())), /Typed more loosely/);
  // The value goes out as the caller wrote it.
  assert.equal(await runOk(client, "from mcptools.loose import pick\nprint(repr(pick.Params(v=1).v))"), "1");
});

test("kernel code calls the registered server's tools through the generated API", async () => {
  const text = await runOk(client, [
    "from mcptools.everything import get_sum, echo",
    "print(get_sum.run(get_sum.Params(a=2, b=3)))",
    "print(echo.run(echo.Params(message='hello from the kernel')))",
  ].join("\n"));
  assert.equal(text, "The sum of 2 and 3 is 5.\nEcho: hello from the kernel");
});

test("a value the typed API refuses comes back as the agent's line and the message, once (issue 41)", async () => {
  const text = await runFailing(client, "from mcptools.everything import echo\necho.run(echo.Params(message=5))");
  assert.match(text, /^ValidationError: 1 validation error for Params\nmessage\n {2}expected a string, got 5/);
  assert.match(text, /----> 2 echo\.run\(echo\.Params\(message=5\)\)/);
  // Before: 1.5 KB of ipybox's model frames and pydantic's between the line and the message.
  assert.doesNotMatch(text, /models\.py|pydantic[/\\]/);
  assert.equal(text.split("expected a string, got 5").length, 2, text);
  assert.ok(text.length < 500, text);
});

test("a tool returning structured content gives a typed Result", async () => {
  const text = await runOk(client, [
    "from mcptools.everything import get_structured_content as g",
    "r = g.run(g.Params(location='Chicago'))",
    "print(type(r).__name__, isinstance(r.temperature, (int, float)), r.conditions != '')",
  ].join("\n"));
  assert.equal(text, "Result True True");
});

test("registering while a cell runs waits for nothing it should not and leaves the cell alone", async () => {
  const cell = runCell(client, "import time\ntime.sleep(1.5)\nprint('cell done')");
  const registration = register("everything_too", everythingParams());
  const [cellResult, registrationResult] = await Promise.all([cell, registration]);
  assert.ok(!cellResult.isError, textOf(cellResult));
  assert.equal(textOf(cellResult), "cell done");
  assert.ok(!registrationResult.isError, textOf(registrationResult));
  assert.match(textOf(registrationResult), /^echo$/m);
});

for (const bad of ["..", "a/b", "class", "", "/abs", "2fa", "bad-name"]) {
  test(`server_name ${JSON.stringify(bad)} is a tool error and nothing is written anywhere`, async () => {
    const before = listTree(root);
    const result = await register(bad, everythingParams());
    assert.equal(result.isError, true, textOf(result));
    assert.ok(textOf(result).length > 0);
    assert.deepEqual(listTree(root), before, "files changed under the test's directory");
    assert.ok(!fs.existsSync(path.join(root, "b")) && !fs.existsSync("/abs"));
  });
}

test("server_params that is not an object is an 'Invalid arguments' tool error", async () => {
  const result = await callTool(client, "register_mcp_server", { server_name: "x", server_params: "node server.js" });
  assert.equal(result.isError, true);
  assert.match(textOf(result), /^Invalid arguments for register_mcp_server: /);
});

test("a server that cannot be started is a tool error and generates nothing", async () => {
  const result = await register("ghost", { command: "/nonexistent/mcp-server", args: [] });
  assert.equal(result.isError, true);
  assert.match(textOf(result), /ghost/);
  assert.ok(!fs.existsSync(path.join(workspace, "mcptools", "ghost")));
});

test("a failed re-registration leaves the previous registration of that name working", async () => {
  try {
    const result = await register("everything", { command: "/nonexistent/mcp-server", args: [] });
    assert.equal(result.isError, true);
    assert.ok(fs.existsSync(path.join(workspace, "mcptools", "everything", "echo.py")), "the old API is kept");
    const call = await runCell(client, "from mcptools.everything import echo\nprint(echo.run(echo.Params(message='still')))");
    assert.ok(!call.isError, `the old API no longer reaches its server:\n${textOf(call).split("\n")[0]}`);
    assert.equal(textOf(call), "Echo: still");
  } finally {
    // Put the good registration back for the tests that follow.
    assert.ok(!(await register("everything", everythingParams())).isError);
  }
});

test("re-registering a name replaces its package, restarts its server and unloads imported modules", async () => {
  assert.ok(!(await register("swap", everythingParams())).isError);
  assert.equal(await runOk(client, "from mcptools.swap import echo as swap_echo\nprint(swap_echo.run(swap_echo.Params(message='one')))"),
    "Echo: one");
  const result = await register("swap", { command: "node", args: [FILESYSTEM, fsRoot] });
  assert.ok(!result.isError, textOf(result));
  const text = textOf(result);
  assert.match(text, /^list_allowed_directories$/m);
  assert.match(text, /unloaded/, "the result says imported modules were unloaded");
  assert.ok(!fs.existsSync(path.join(workspace, "mcptools", "swap", "echo.py")), "old modules are removed");
  const listed = await runOk(client, [
    "from mcptools.swap import list_allowed_directories as lad, read_text_file as rtf",
    "print(lad.run(lad.Params()))",
    `print(rtf.run(rtf.Params(path=${JSON.stringify(path.join(fsRoot, "hello.txt"))})).content.strip())`,
  ].join("\n"));
  assert.match(listed, new RegExp(fsRoot.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  assert.match(listed, /hello fs$/);
  assert.match(await runFailing(client, "import mcptools.swap.echo"), /ModuleNotFoundError/);
});

test("a tool error from the MCP server is raised in the kernel as ToolRunnerError", async () => {
  const text = await runFailing(client, [
    "from mcptools.swap import read_text_file as rtf",
    // The error's classes, by name: ToolError, a ToolRunnerError that carries every content item.
    "try:",
    "    rtf.run(rtf.Params(path='/etc/passwd'))",
    "except Exception as e:",
    "    raise RuntimeError(' '.join(c.__name__ for c in type(e).__mro__) + ': ' + str(e))",
  ].join("\n"));
  assert.match(text, /ToolRunnerError/);
  assert.match(text, /Access denied|outside allowed/);
});

// ---- .env, KERNEL_ENV_ and ${VAR} ----------------------------------------------------------------

test("KERNEL_ENV_X from the workspace .env reaches the kernel as X; the real environment wins over .env", async () => {
  const text = await runOk(client, [
    "import os",
    "print(os.environ.get('FROM_DOTENV'))",
    "print(os.environ.get('IN_BOTH'))",
  ].join("\n"));
  assert.equal(text, "dotenv-value\nfrom-real-environment");
});

test("other variables (from .env or the host) do not reach the kernel", async () => {
  const text = await runOk(client, [
    "import os",
    "print(sorted(k for k in ('SERVER_SECRET', 'ONLY_IN_DOTENV', 'IPYBOX_TEST_HOST_ONLY') if k in os.environ))",
  ].join("\n"));
  assert.equal(text, "[]");
});

test("${VAR} in server_params is filled from .env for the MCP server, and the value never enters the kernel or the workspace", async () => {
  const result = await register("withenv", everythingParams({ SECRET_FOR_SERVER: "${SERVER_SECRET}" }));
  assert.ok(!result.isError, textOf(result));
  const text = await runOk(client, [
    "import json, os",
    "from mcptools.withenv import get_env",
    "server_env = json.loads(str(get_env.run(get_env.Params())))",
    "print(server_env.get('SECRET_FOR_SERVER'))",
    "print('SERVER_SECRET' in os.environ, 'SECRET_FOR_SERVER' in os.environ)",
  ].join("\n"));
  // The server tells its environment; the kernel reads the placeholder (the redaction rule).
  assert.equal(text, "${SERVER_SECRET}\nFalse False");
  // The server itself has the value: its environment, read host-side.
  const holders = descendants(server.pid).filter(({ pid }) => {
    try {
      return fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`SECRET_FOR_SERVER=${SECRET}`);
    } catch {
      return false;
    }
  });
  assert.equal(holders.length, 1, "no MCP server process holds the filled value");
  const files = listTree(workspace).filter((entry) => !entry.endsWith("/") && !entry.startsWith(".ipybox/outputs"));
  for (const file of files) {
    if (file === ".env") continue;
    assert.ok(!fs.readFileSync(path.join(workspace, file), "utf8").includes(SECRET), `${file} holds the secret`);
  }
});

test("a ${VAR} that is set nowhere is a tool error naming it", async () => {
  const result = await register("missingvar", everythingParams({ TOKEN: "${IPYBOX_TEST_NOT_SET_ANYWHERE}" }));
  assert.equal(result.isError, true);
  assert.match(textOf(result), /IPYBOX_TEST_NOT_SET_ANYWHERE/);
});

// ---- reset ----------------------------------------------------------------------------------------

test("reset clears variables and imports but keeps mcptools/, workspace files and registrations", async () => {
  await runOk(client, "reset_marker = 1\nopen('kept.txt', 'w').write('file survives')");
  const result = await callTool(client, "reset", {});
  assert.ok(!result.isError, textOf(result));
  assert.match(await runFailing(client, "reset_marker"), /NameError/);
  assert.match(await runFailing(client, "get_sum"), /NameError/);
  assert.equal(await runOk(client, "print(open('kept.txt').read())"), "file survives");
  assert.ok(fs.existsSync(path.join(workspace, "mcptools", "everything", "echo.py")));
  assert.equal(await runOk(client, "from mcptools.everything import echo\nprint(echo.run(echo.Params(message='after reset')))"),
    "Echo: after reset");
});

test("after reset the kernel environment still has the KERNEL_ENV_ variables", async () => {
  assert.equal(await runOk(client, "import os; print(os.environ.get('FROM_DOTENV'))"), "dotenv-value");
});

test("reset with unexpected arguments still resets (the tool takes none)", async () => {
  await runOk(client, "marker2 = 1");
  const result = await callTool(client, "reset", { unexpected: true });
  assert.ok(!result.isError, textOf(result));
  assert.match(await runFailing(client, "marker2"), /NameError/);
});
