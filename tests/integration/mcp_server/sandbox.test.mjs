// `ipybox mcp --sandbox` with the real srt (npm) and bubblewrap: the kernel is confined, the MCP
// tools keep working, and the server refuses to start without the sandbox runtime.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import {
  NODE_MODULES, callTool, everythingParams, makeTempDir, removeDir, runOk, startRaw, startServer, textOf,
} from "./support.mjs";

const SRT = path.join(NODE_MODULES, ".bin", "srt");
const root = makeTempDir("mcp-sandbox");
const workspace = path.join(root, "workspace");
const outside = path.join(root, "outside");
let server;

before(async () => {
  assert.ok(fs.existsSync(SRT), "install the npm test peers: npm install --prefix tests/node");
  fs.mkdirSync(workspace);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(workspace, ".env"), "SANDBOXED_SECRET=never-in-the-kernel\n");
  server = await startServer({
    workspace, stateDir: root, env: { IPYBOX_SRT: SRT },
    args: ["mcp", "--workspace", workspace, "--sandbox"],
  });
});

after(async () => {
  await server?.close();
  removeDir(root);
});

test("the kernel writes in the workspace but not outside it, and cannot read .env", async () => {
  const target = JSON.stringify(path.join(outside, "escaped.txt"));
  const text = await runOk(server.client, [
    "import os",
    "open('inside.txt', 'w').write('ok')",
    "for what, act in [('outside', lambda: open(" + target + ", 'w')), ('.env', lambda: open('.env').read())]:",
    "    try:",
    "        act(); print(what, 'allowed')",
    "    except OSError as e:",
    "        print(what, 'blocked')",
    "print(os.environ.get('SANDBOXED_SECRET'))",
  ].join("\n"));
  assert.equal(text, "outside blocked\n.env blocked\nNone");
  assert.equal(fs.readFileSync(path.join(workspace, "inside.txt"), "utf8"), "ok");
  assert.equal(fs.existsSync(path.join(outside, "escaped.txt")), false);
});

test("registered MCP servers are still callable from sandboxed code, and reset stays sandboxed", async () => {
  const registered = await callTool(server.client, "register_mcp_server",
    { server_name: "everything", server_params: everythingParams() });
  assert.ok(!registered.isError, textOf(registered));
  assert.equal(await runOk(server.client,
    "from mcptools.everything import echo\nprint(echo.run(echo.Params(message='out and back')))"), "Echo: out and back");
  const reset = await callTool(server.client, "reset");
  assert.ok(!reset.isError, textOf(reset));
  const target = JSON.stringify(path.join(outside, "after-reset.txt"));
  assert.equal(await runOk(server.client,
    `try:\n    open(${target}, 'w')\n    print('allowed')\nexcept OSError:\n    print('blocked')`), "blocked");
});

test("without srt the server exits at once with an error and never answers", async () => {
  const raw = startRaw({
    workspace: path.join(root, "no-srt"), stateDir: root, env: { IPYBOX_SRT: path.join(root, "missing-srt") },
    args: ["mcp", "--workspace", path.join(root, "no-srt"), "--sandbox"],
  });
  const { code } = await raw.exited;
  assert.equal(code, 3);
  assert.match(raw.stderr(), /refusing to run the kernel unsandboxed/);
  assert.deepEqual(raw.messages, []);
});
