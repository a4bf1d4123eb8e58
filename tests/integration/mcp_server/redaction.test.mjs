// The one redaction rule through `ipybox mcp` (core/redactor.hpp): values filled from ${VAR}
// placeholders (from ipybox's environment and the workspace .env) appear nowhere in what ipybox
// emits: register_mcp_server's answers, cell results and the errors kernel code receives, stderr
// with logs at debug level, the registry file and every file ipybox writes in the workspace.
// Fresh random markers are filled into every part of server parameters (URL path, query,
// user info, host, headers, command, arguments, environment) and every failure we can make
// happens: a 404 (streamable HTTP and SSE), a refused connection, a path that names no transport, user info, a host that
// does not resolve, a missing command, and a server that echoes its arguments and environment
// on stdout (not JSON), stderr, in its descriptions, results and errors and as it exits mid-call.
// The control puts the markers in directly: there they show.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { after, before, test } from "node:test";

import { REPO, callTool, makeTempDir, removeDir, runCell, startServer, textOf } from "./support.mjs";

const root = makeTempDir("mcp-redaction");
const ECHO_SERVER = path.join(REPO, "tests", "support", "secret_echo_server.mjs");
let notFound;  // an HTTP server that answers 404 to everything
let notFoundPort;

before(async () => {
  notFound = http.createServer((request, response) => {
    request.resume();
    response.writeHead(404, { "content-type": "text/plain" }).end(`no ${request.url} here`);
  });
  await new Promise((resolve) => notFound.listen(0, "127.0.0.1", resolve));
  notFoundPort = notFound.address().port;
});

after(() => {
  notFound.close();
  removeDir(root);
});

const NAMES = ["PATH_TOKEN", "QUERY_TOKEN", "HEADER_TOKEN", "SSE_TOKEN", "REFUSED_TOKEN",
  "BADPATH_TOKEN", "USER_TOKEN", "PASS_TOKEN", "HOST_TOKEN", "COMMAND_TOKEN", "ARG_TOKEN", "ENV_TOKEN",
  "PEM_TOKEN"];

// Mixed case, so that a lower-cased copy (a URL's host) is another string.
// PEM_TOKEN is a multi-line value (a key): the echo server's stderr splits it over lines.
const marker = (name) => name === "PEM_TOKEN"
  ? ["-----BEGIN TEST KEY-----", ...[1, 2, 3].map(() => `Mk${crypto.randomBytes(24).toString("base64")}`),
    "-----END TEST KEY-----"].join("\n")
  : `Mk${name.slice(0, 3)}${crypto.randomBytes(6).toString("hex")}`;

// The markers and the servers' parameters: `${VAR}` in them, or the markers when `direct`.
function scenario(direct) {
  const values = Object.fromEntries(NAMES.map((name) => [name, marker(name)]));
  const v = (name) => (direct ? values[name] : `\${${name}}`);
  const failing = {
    notfound: { url: `http://127.0.0.1:${notFoundPort}/mcp/${v("PATH_TOKEN")}/mcp?key=${v("QUERY_TOKEN")}`,
      headers: { Authorization: `Bearer ${v("HEADER_TOKEN")}` } },
    ssenotfound: { url: `http://127.0.0.1:${notFoundPort}/${v("SSE_TOKEN")}/sse` },
    refused: { url: `http://127.0.0.1:1/mcp/${v("REFUSED_TOKEN")}/mcp` },
    badpath: { url: `http://127.0.0.1:${notFoundPort}/${v("BADPATH_TOKEN")}/x` },
    userinfo: { url: `http://${v("USER_TOKEN")}:${v("PASS_TOKEN")}@127.0.0.1:${notFoundPort}/mcp` },
    nohost: { url: `http://${v("HOST_TOKEN")}.invalid/mcp` },
    nocommand: { command: `/nonexistent/${v("COMMAND_TOKEN")}/server` },
  };
  const echo = { command: "node", args: [ECHO_SERVER, v("ARG_TOKEN")], env: { SECRET_ONE: v("ENV_TOKEN"), SECRET_PEM: v("PEM_TOKEN") } };
  return { values, failing, echo };
}

const CALL_ALL = (servers) => `
from ipybox_runtime import tool_client
for server, tool in ${JSON.stringify(servers)}:
    try:
        print(server, tool, "gave", repr(tool_client.call_tool(server, tool, {})))
    except Exception as error:
        print(server, tool, "raised", type(error).__name__, error)`;

// Runs the scenario in a workspace of its own; returns what ipybox emitted (`output`) and the
// registry file it wrote (`registry`), each as one text.
async function emitted({ values, failing, echo }) {
  const dir = fs.mkdtempSync(path.join(root, "case-"));
  const workspace = path.join(dir, "workspace");
  const state = path.join(dir, "state");
  fs.mkdirSync(workspace);
  // Half the values from the workspace .env, half from ipybox's environment (PEM_TOKEN, 12th).
  const env = {};
  const dotenv = [];
  NAMES.forEach((name, i) => (i % 2 ? dotenv.push(`${name}=${values[name]}`) : (env[name] = values[name])));
  fs.writeFileSync(path.join(workspace, ".env"), dotenv.join("\n") + "\n");
  const args = ["mcp", "--workspace", workspace, "--log-level", "debug"];
  const texts = [];

  // Session 1: registrations (the failing ones answer errors), then the echo server's tools.
  let server = await startServer({ workspace, stateDir: state, env, args });
  for (const [name, params] of Object.entries(failing)) {
    const result = await callTool(server.client, "register_mcp_server", { server_name: name, server_params: params });
    assert.equal(result.isError, true, `${name}: ${textOf(result)}`);
    texts.push(textOf(result));
  }
  const registered = await callTool(server.client, "register_mcp_server", { server_name: "echo", server_params: echo });
  assert.ok(!registered.isError, textOf(registered));
  texts.push(textOf(registered));
  texts.push(textOf(await runCell(server.client,
    CALL_ALL([["echo", "tell"], ["echo", "fail"], ["echo", "crash"], ["echo", "tell"]]))));
  await server.close();
  texts.push(server.stderr());

  // Session 2: the failing servers restored from the registry (as if registered earlier), so
  // that kernel code calls them and receives their errors.
  const registry = path.join(state, "ipybox", "workspaces",
    fs.readdirSync(path.join(state, "ipybox", "workspaces")).find((file) => file.endsWith(".json")));
  const document = JSON.parse(fs.readFileSync(registry, "utf8"));
  Object.assign(document.servers, failing);
  fs.writeFileSync(registry, JSON.stringify(document));
  server = await startServer({ workspace, stateDir: state, env, args });
  texts.push(textOf(await runCell(server.client,
    CALL_ALL(Object.keys(failing).map((name) => [name, "x"])))));
  await server.close();
  texts.push(server.stderr());

  // Every file in the workspace but the .env we wrote.
  const walk = (folder) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && full !== path.join(workspace, ".env")) texts.push(fs.readFileSync(full, "utf8"));
    }
  };
  walk(workspace);
  return { output: texts.join("\n"), registry: fs.readFileSync(registry, "utf8") };
}

// A value leaks if it shows whole or any of its lines does (a kept tail of stderr lines).
const leaked = (values, text) => {
  const lowered = text.toLowerCase();
  return NAMES.filter((name) => values[name].split("\n").some((line) => lowered.includes(line.toLowerCase())));
};

test("no value filled from a placeholder appears in anything ipybox mcp emits", async () => {
  const s = scenario(false);
  const { output, registry } = await emitted(s);
  const text = output + registry;
  // The failures happened and the echo server told what it was given, redacted.
  assert.match(text, /notfound x raised ToolRunnerError .*404/);
  assert.match(text, /refused x raised ToolRunnerError/);
  assert.match(text, /fail: args \$\{ARG_TOKEN\}; env .*SECRET_ONE=\$\{ENV_TOKEN\}/);
  assert.match(text, /crash raised .*last stderr lines:/);
  assert.match(text, /this server was started with args \$\{ARG_TOKEN\}/);
  assert.match(text, /\[debug\]/);
  assert.deepEqual(leaked(s.values, text), [], text);
});

test("the control: values put in directly do show, so a leak would be found", async () => {
  const s = scenario(true);
  // Not the registry: it keeps the parameters as given, markers and all.
  const found = leaked(s.values, (await emitted(s)).output);
  for (const name of ["PATH_TOKEN", "SSE_TOKEN", "REFUSED_TOKEN", "BADPATH_TOKEN", "USER_TOKEN",
    "PASS_TOKEN", "HOST_TOKEN", "COMMAND_TOKEN", "ARG_TOKEN", "ENV_TOKEN", "PEM_TOKEN"]) {
    assert.ok(found.includes(name), `${name} should show when put in directly; found ${found}`);
  }
});
