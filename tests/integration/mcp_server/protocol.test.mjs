// The MCP session of `ipybox mcp`: initialize and version negotiation, the tool list, and what
// happens with input that is not a well-formed request.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";

import {
  IPYBOX, McpError, callTool, makeTempDir, removeDir, runOk, serverEnvironment, startRaw, startServer, textOf,
} from "./support.mjs";

const root = makeTempDir("mcp-protocol");
after(() => removeDir(root));
const workspaceFor = (label) => fs.mkdtempSync(path.join(root, `${label}-`));

describe("initialize", () => {
  // Negotiation does not involve the kernel: these servers get an interpreter that cannot run
  // one (/bin/false), which keeps them cheap to start and stop.
  const noKernel = (workspace) => ["mcp", "--workspace", workspace, "--python", "/bin/false"];
  for (const version of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
    test(`negotiates protocol version ${version} when the client offers it`, async () => {
      const workspace = workspaceFor("version");
      const server = await startServer({ workspace, stateDir: root, offer: version, args: noKernel(workspace) });
      try {
        // The SDK client would have refused a version outside its supported list.
        assert.equal(server.initializeResult.protocolVersion, version);
        const tools = await server.client.listTools();
        assert.equal(tools.tools.length, 5);
        assert.equal(server.client.getServerVersion().name, "ipybox");
      } finally {
        assert.deepEqual(await server.close(), [], "child processes outlived the server");
      }
    });
  }

  test("answers an unknown protocol version with its latest one (2025-11-25)", async () => {
    const workspace = workspaceFor("version");
    const raw = startRaw({ workspace, stateDir: root, args: noKernel(workspace) });
    try {
      const reply = await raw.initialize(1, "1999-01-01");
      assert.equal(reply.result.protocolVersion, "2025-11-25");
    } finally {
      assert.equal((await raw.stop()).code, 0);
    }
  });

  test("`ipybox --workspace DIR` is a synonym of `ipybox mcp --workspace DIR`", async () => {
    const workspace = workspaceFor("synonym");
    const server = await startServer({ workspace, stateDir: root, args: ["--workspace", workspace] });
    try {
      assert.equal(await runOk(server.client, "import os; print(os.getcwd())"), workspace);
    } finally {
      assert.deepEqual(await server.close(), [], "child processes outlived the server");
    }
  });
});

describe("tools/list", () => {
  let server;
  let tools;
  before(async () => {
    server = await startServer({ workspace: workspaceFor("tools"), stateDir: root });
    tools = (await server.client.listTools()).tools;
  });
  after(async () => {
    assert.deepEqual(await server.close(), [], "child processes outlived the server");
  });

  const byName = (name) => tools.find((tool) => tool.name === name);

  test("initialize is answered at once, before the kernel is ready (under 2 s including spawn)", async () => {
    assert.ok(server.connectMs < 2000, `connect took ${server.connectMs} ms`);
    assert.equal(server.initializeResult.protocolVersion, "2025-11-25");
    assert.equal(server.initializeResult.serverInfo.name, "ipybox");
    assert.ok(server.initializeResult.capabilities.tools, "the tools capability is advertised");
    assert.match(server.initializeResult.instructions ?? "", /execute_ipython_cell/);
  });

  test("ping and logging/setLevel are answered", async () => {
    await server.client.ping();
    await server.client.setLoggingLevel("debug");
    await server.client.setLoggingLevel("info");
  });

  test("lists the reference's four tools in the reference's order, search_tools before reset", () => {
    assert.deepEqual(tools.map((tool) => tool.name),
      ["register_mcp_server", "install_package", "execute_ipython_cell", "search_tools", "reset"]);
  });

  test("every tool has a description for the model and an object input schema", () => {
    for (const tool of tools) {
      assert.ok(tool.description && tool.description.length > 40, `${tool.name} description`);
      assert.equal(tool.inputSchema.type, "object", tool.name);
      assert.equal(typeof tool.inputSchema.properties, "object", tool.name);
    }
  });

  test("execute_ipython_cell takes code (required), timeout = 120 (number), max_output_chars = 5000 (integer)", () => {
    const schema = byName("execute_ipython_cell").inputSchema;
    assert.deepEqual(schema.required, ["code"]);
    assert.equal(schema.properties.code.type, "string");
    assert.equal(schema.properties.timeout.type, "number");
    assert.equal(schema.properties.timeout.default, 120);
    assert.equal(schema.properties.max_output_chars.type, "integer");
    assert.equal(schema.properties.max_output_chars.default, 5000);
    assert.deepEqual(schema.properties.images.enum, ["inline", "paths"]);
    assert.equal(schema.properties.images.default, "inline");
  });

  test("register_mcp_server takes server_name (string) and server_params (object), both required", () => {
    const schema = byName("register_mcp_server").inputSchema;
    assert.deepEqual([...schema.required].sort(), ["server_name", "server_params"]);
    assert.equal(schema.properties.server_name.type, "string");
    assert.equal(schema.properties.server_params.type, "object");
  });

  test("install_package takes package_name (string, required); reset takes nothing", () => {
    const install = byName("install_package").inputSchema;
    assert.deepEqual(install.required, ["package_name"]);
    assert.equal(install.properties.package_name.type, "string");
    const reset = byName("reset").inputSchema;
    assert.deepEqual(reset.properties, {});
    assert.ok(!reset.required || reset.required.length === 0);
  });

  test("an unknown tool is a JSON-RPC error -32602 naming it, not a tool result", async () => {
    await assert.rejects(callTool(server.client, "no_such_tool", {}), (error) => {
      assert.ok(error instanceof McpError, String(error));
      assert.equal(error.code, -32602);
      assert.match(error.message, /no_such_tool/);
      return true;
    });
    // The session is still usable.
    assert.equal(textOf(await callTool(server.client, "execute_ipython_cell", { code: "6*7" })), "42");
  });
});

describe("raw JSON lines", () => {
  let raw;
  before(() => {
    raw = startRaw({ workspace: workspaceFor("raw"), stateDir: root });
  });
  after(async () => {
    const status = await raw.stop();
    assert.equal(status.code, 0, `exit status ${JSON.stringify(status)}\n${raw.stderr()}`);
  });

  test("a client that never sends notifications/initialized still gets answers", async () => {
    const init = await raw.initialize(1, "2025-06-18");
    assert.equal(init.result.protocolVersion, "2025-06-18");
    // No notifications/initialized on purpose.
    const list = await raw.request(2, "tools/list", {});
    assert.equal(list.result.tools.length, 5);
    const call = await raw.request(3, "tools/call",
      { name: "execute_ipython_cell", arguments: { code: "print('no initialized needed')" } }, 60_000);
    assert.equal(call.result.content[0].text, "no initialized needed");
  });

  test("malformed JSON is answered with a -32700 parse error (id null) and the session goes on", async () => {
    raw.sendLine("{this is not json");
    const error = await raw.next((m) => m.error?.code === -32700, 10_000, "a parse error");
    assert.equal(error.id, null);
    assert.deepEqual((await raw.request(10, "ping")).result, {});
  });

  test("an unknown method is a -32601 method-not-found error", async () => {
    const reply = await raw.request(11, "tools/frobnicate", {});
    assert.equal(reply.error.code, -32601);
  });

  test("an unknown tool is a -32602 invalid-params error", async () => {
    const reply = await raw.request(12, "tools/call", { name: "nope", arguments: {} });
    assert.equal(reply.error.code, -32602);
    assert.match(reply.error.message, /nope/);
  });

  test("tools/call without arguments is a tool error the model can correct", async () => {
    const reply = await raw.request(13, "tools/call", { name: "execute_ipython_cell" });
    assert.equal(reply.result.isError, true);
    assert.match(reply.result.content[0].text, /^Invalid arguments for execute_ipython_cell: .*code/);
  });

  test("notifications/cancelled interrupts the running cell and the kernel keeps its state", async () => {
    await raw.request(20, "tools/call", { name: "execute_ipython_cell", arguments: { code: "survives_cancel = 1" } }, 60_000);
    raw.send({ id: 21, method: "tools/call", params: {
      name: "execute_ipython_cell", arguments: { code: "import time\nprint('working', flush=True)\ntime.sleep(60)" } } });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const cancelled = Date.now();
    raw.send({ method: "notifications/cancelled", params: { requestId: 21, reason: "the user pressed Escape" } });
    // Queued behind the cancelled cell: answered only once the cell has stopped.
    const after = await raw.request(22, "tools/call", { name: "execute_ipython_cell", arguments: { code: "survives_cancel" } });
    assert.ok(Date.now() - cancelled < 5000, `the next call was answered ${Date.now() - cancelled} ms after the cancellation`);
    assert.equal(after.result.content[0].text, "1");
    // MCP says a cancelled request SHOULD get no response; if one comes, it must say so.
    const reply = raw.messages.find((m) => m.id === 21);
    if (reply) assert.match(reply.result.content[0].text, /\[ipybox\] cancelled/);
  });

  test("a request without a method or with a wrong jsonrpc version is an error, not a crash", async () => {
    raw.sendLine(JSON.stringify({ jsonrpc: "2.0", id: 14 }));
    const missing = await raw.response(14, 10_000);
    assert.ok(missing.error, JSON.stringify(missing));
    raw.sendLine(JSON.stringify({ jsonrpc: "1.0", id: 15, method: "ping" }));
    const wrong = await raw.response(15, 10_000);
    assert.ok(wrong.error, JSON.stringify(wrong));
    assert.deepEqual((await raw.request(16, "ping")).result, {});
  });
});

describe("--sandbox fails closed", () => {
  const cases = [
    { flags: ["--sandbox"], status: 3, why: "srt missing" },
    { flags: ["--sandbox-config", "/dev/null"], status: 2, why: "a config that is not JSON" },
    { flags: ["--sandbox-config", "/nonexistent/sandbox.json"], status: 2, why: "a missing config" },
  ];
  for (const { flags, status, why } of cases) {
    test(`${flags.join(" ")} (${why}) refuses to start (exit ${status}, a message on stderr, nothing on stdout)`, () => {
      const workspace = workspaceFor("sandbox");
      const run = spawnSync(IPYBOX, ["mcp", "--workspace", workspace, ...flags], {
        input: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {
          protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } } }) + "\n",
        env: serverEnvironment(root, { IPYBOX_SRT: path.join(root, "no-srt-here") }), encoding: "utf8",
        timeout: 30_000,
      });
      assert.equal(run.status, status, run.stderr);
      assert.match(run.stderr, /sandbox/i);
      assert.equal(run.stdout, "");
      assert.deepEqual(fs.readdirSync(workspace), [], "nothing ran in the workspace");
    });
  }
});
