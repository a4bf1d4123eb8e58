// Kernels, the MCP client's stdio and the tool server share one loop (issue 22). Kernel code that
// floods what ipybox reads from it (IOPub output, and its stderr, which ipybox reads line by
// line) must not starve the rest: while a cell floods both, the client's pings and tool listing
// are answered, and the flood itself reaches ipybox (the controls: the cell's clipped output,
// and the kernel's stderr lines in ipybox's debug log).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import { makeTempDir, removeDir, runCell, startServer, textOf } from "./support.mjs";

let root;
let server;

before(async () => {
  root = makeTempDir("shared-loop");
  const workspace = path.join(root, "workspace");
  fs.mkdirSync(workspace);
  server = await startServer({
    workspace, stateDir: path.join(root, "state"),
    args: ["mcp", "--workspace", workspace, "--log-level", "debug"],
  });
});

after(async () => {
  await server?.close();
  removeDir(root);
});

test("a cell flooding IOPub and its stderr leaves the client's requests answered", async () => {
  const flag = path.join(server.workspace, "stop-flood");
  const flooding = runCell(server.client, [
    "import os, sys",
    "chunk = 'x' * 60000",
    `while not os.path.exists(${JSON.stringify(flag)}):`,
    "    print(chunk)",
    "    os.write(2, b'kernel-stderr-flood ' + b'y' * 60000 + b'\\n')",
    "print('flood over')",
  ].join("\n"), { timeout: 120 });
  // The flood is under way once its stderr lines reach ipybox's log.
  for (let waited = 0; !server.stderr().includes("kernel-stderr-flood"); waited += 50) {
    assert.ok(waited < 60_000, "the kernel's stderr never reached ipybox");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (let i = 0; i < 20; i++) await server.client.ping();
  const tools = await server.client.listTools();
  assert.ok(tools.tools.some((tool) => tool.name === "execute_ipython_cell"));
  fs.writeFileSync(flag, "");
  const result = await flooding;
  assert.ok(!result.isError, textOf(result));
  const text = textOf(result);
  assert.match(text, /xxxxxxxxxx/);
  // The output is clipped (its head and tail kept; stderr, forwarded later, may be its tail):
  // its last line is in the whole output, which the clipped text names.
  const whole = text.match(/the full output is in (\S+) /);
  assert.match(whole ? fs.readFileSync(whole[1], "utf8") : text, /flood over/);
});
