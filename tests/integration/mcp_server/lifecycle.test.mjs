// Faults and shutdown: the kernel dying mid-cell, stdin closing mid-cell, SIGTERM with an MCP
// server running, and a kernel that cannot start. Each shutdown test checks that every child
// process (kernels, the spare kernel, MCP servers) is gone afterwards.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";

import {
  EVERYTHING, callTool, descendants, everythingParams, isAlive, isGone, kernelsIn, makeTempDir, removeDir, runCell,
  runFailing, runOk, startRaw, startServer, survivorsAfter, textOf, waitUntil,
} from "./support.mjs";

const root = makeTempDir("mcp-lifecycle");
after(() => removeDir(root));

function freshWorkspace(label) {
  const dir = path.join(root, label);
  fs.mkdirSync(dir);
  return dir;
}

const cellCall = (id, code, extra = {}) => ({
  id, method: "tools/call", params: { name: "execute_ipython_cell", arguments: { code, ...extra } },
});

// A cell that writes `marker` once it runs, then sleeps.
const sleeperWritingMarker = (marker) =>
  `open(${JSON.stringify(marker)}, 'w').write('running')\nimport time\ntime.sleep(60)`;

describe("the kernel dies", () => {
  let server;
  before(async () => {
    server = await startServer({ workspace: freshWorkspace("dies"), stateDir: root });
  });
  after(async () => {
    assert.deepEqual(await server.close(), [], "child processes outlived the server");
  });

  test("a kernel that exits mid-cell (os._exit) is an isError result saying the state is lost", async () => {
    const kernelPid = Number(await runOk(server.client, "lost_on_death = 1\nimport os; print(os.getpid())"));
    // The pause lets the kernel's I/O thread send the output: os._exit right after a print loses
    // it inside the kernel (jupyter_client sees it 1 time in 5 too).
    const text = await runFailing(server.client,
      "import os, time\nprint('before dying', flush=True)\ntime.sleep(0.3)\nos._exit(1)");
    assert.match(text, /^before dying\n\nKernelDied: The kernel died while running this code/);
    assert.match(text, /lost/);
    await waitUntil(() => !isAlive(kernelPid), 5000, "the dead kernel to exit");
  });

  test("the call after a kernel death works in a fresh kernel and starts with a notice", async () => {
    const result = await runCell(server.client, "print('alive again')");
    assert.ok(!result.isError, textOf(result));
    const text = textOf(result);
    assert.match(text, /^\[ipybox\] The previous kernel died/);
    assert.match(text, /alive again$/);
    assert.match(await runFailing(server.client, "lost_on_death"), /NameError/);
  });

  test("a kernel killed from outside while idle is replaced on the next call, with a notice", async () => {
    const pid = Number(await runOk(server.client, "import os; print(os.getpid())"));
    process.kill(pid, "SIGKILL");
    // Reaped means ipybox has seen the death (it reaps its kernels itself).
    await waitUntil(() => isGone(pid), 5000, "ipybox to reap the killed kernel");
    const text = await runOk(server.client, "'replaced'");
    assert.match(text, /^\[ipybox\] The previous kernel died/);
    assert.match(text, /'replaced'$/);
  });
});

describe("shutdown", () => {
  test("stdin closing mid-cell: the server exits 0 and no kernel process remains", async () => {
    const workspace = freshWorkspace("stdin-eof");
    const marker = path.join(workspace, "cell-is-running");
    const raw = startRaw({ workspace, stateDir: root });
    await raw.initialize(1);
    raw.send({ method: "notifications/initialized" });
    raw.send(cellCall(2, sleeperWritingMarker(marker)));
    await waitUntil(() => fs.existsSync(marker), 30_000, "the cell to start");
    const children = descendants(raw.child.pid);
    assert.ok(children.some((child) => child.command.includes("ipybox_runtime.kernel_main")), JSON.stringify(children));
    const closed = Date.now();
    raw.child.stdin.end();
    const status = await Promise.race([raw.exited, new Promise((resolve) => setTimeout(() => resolve("hung"), 10_000))]);
    if (status === "hung") raw.child.kill("SIGKILL");
    assert.deepEqual(status, { code: 0, signal: null }, raw.stderr());
    assert.ok(Date.now() - closed < 5000, `exit took ${Date.now() - closed} ms`);
    assert.deepEqual(await survivorsAfter(children, 5000), []);
    assert.deepEqual(kernelsIn(workspace), [], "kernel_main processes in the workspace remain");
  });

  test("SIGTERM mid-cell with an MCP server running: the server exits by itself and every child is gone", async () => {
    const workspace = freshWorkspace("sigterm");
    const marker = path.join(workspace, "cell-is-running");
    const raw = startRaw({ workspace, stateDir: root });
    await raw.initialize(1);
    raw.send({ method: "notifications/initialized" });
    const registered = await raw.request(2, "tools/call",
      { name: "register_mcp_server", arguments: { server_name: "everything", server_params: everythingParams() } }, 60_000);
    assert.ok(!registered.result.isError, JSON.stringify(registered));
    const echoed = await raw.request(3, "tools/call", cellCall(3,
      "from mcptools.everything import echo\nprint(echo.run(echo.Params(message='up')))").params, 60_000);
    assert.equal(echoed.result.content[0].text, "Echo: up");
    raw.send(cellCall(4, sleeperWritingMarker(marker)));
    await waitUntil(() => fs.existsSync(marker), 30_000, "the cell to start");
    const children = descendants(raw.child.pid);
    assert.ok(children.some((child) => child.command.includes(EVERYTHING)), `no server-everything among ${JSON.stringify(children)}`);
    assert.ok(children.some((child) => child.command.includes("ipybox_runtime.kernel_main")));
    raw.child.kill("SIGTERM");
    const status = await Promise.race([raw.exited, new Promise((resolve) => setTimeout(() => resolve("hung"), 10_000))]);
    if (status === "hung") raw.child.kill("SIGKILL");
    assert.notEqual(status, "hung", "the server did not exit within 10 s of SIGTERM");
    assert.equal(status.signal, null, "the server handled SIGTERM and exited by itself");
    assert.deepEqual(await survivorsAfter(children, 5000), []);
    assert.deepEqual(kernelsIn(workspace), []);
  });

  // A child that left the kernel's session and ignores SIGTERM, started by the cell; its pid is
  // written to `pidFile`. The cell then sleeps.
  const escapingChild = (pidFile, marker) => [
    "import subprocess, time",
    `subprocess.Popen(['setsid', 'sh', '-c', 'trap "" TERM; echo $$ > ${pidFile}; exec sleep 300'])`,
    `open(${JSON.stringify(marker)}, 'w').close()`,
    "time.sleep(120)",
  ].join("\n");

  for (const ending of ["stdin EOF", "SIGKILL"]) {
    test(`${ending} mid-cell: a SIGTERM-ignoring child that left the kernel's session is gone too`, async () => {
      const workspace = freshWorkspace(`escape-${ending.replace(/\W/g, "")}`);
      const marker = path.join(workspace, "cell-is-running");
      const pidFile = path.join(workspace, "escaped.pid");
      const raw = startRaw({ workspace, stateDir: root });
      await raw.initialize(1);
      raw.send({ method: "notifications/initialized" });
      raw.send(cellCall(2, escapingChild(pidFile, marker)));
      await waitUntil(() => fs.existsSync(marker) && fs.existsSync(pidFile), 30_000, "the cell to start");
      const escaped = Number(fs.readFileSync(pidFile, "utf8"));
      assert.ok(isAlive(escaped));
      if (ending === "SIGKILL") raw.child.kill("SIGKILL"); else raw.child.stdin.end();
      await raw.exited;
      await waitUntil(() => !isAlive(escaped), 10_000, "the escaped child to end");
      await waitUntil(() => kernelsIn(workspace).length === 0, 10_000, "no kernel in the workspace");
    });
  }

  // Known limitation, kept visible: a kernel session that stops abandons the starts under way
  // (spares, the template: session_stopping.cpp), but `ipybox mcp` waits for the executor's own
  // first start before it stops the session, so this first start is still waited for.
  test("stdin EOF while the kernel is still starting exits at once, without waiting for the start", {
    todo: "ipybox mcp waits for the executor's first kernel start before it stops the session (closing note)",
  }, async () => {
    // An interpreter whose kernels take a minute to come up makes "still starting" certain, and a
    // server that waited for them (or for their start timeout) unmistakable. ipybox's probe of
    // the interpreter (a -c script that prints IPYBOX-PROBE) gets it at once: the probe is not the
    // start this is about (it has a 20 s bound of its own, not abandoned at stop).
    const workspace = freshWorkspace("early-eof");
    const slowPython = path.join(root, "slow-python");
    fs.writeFileSync(slowPython, [
      "#!/bin/sh",
      'case "$*" in *IPYBOX-PROBE*) exec /usr/bin/python3 "$@";; esac',
      "sleep 60",
      'exec /usr/bin/python3 "$@"',
      "",
    ].join("\n"), { mode: 0o755 });
    const raw = startRaw({ workspace, stateDir: root, args: ["mcp", "--workspace", workspace, "--python", slowPython] });
    await raw.initialize(1);
    await waitUntil(() => descendants(raw.child.pid).length > 0, 10_000, "the interpreter to be started");
    const children = descendants(raw.child.pid);
    const closed = Date.now();
    raw.child.stdin.end();
    const status = await raw.exited;
    const took = Date.now() - closed;
    assert.deepEqual(status, { code: 0, signal: null });
    assert.ok(took < 20_000, `exit took ${took} ms after stdin EOF: it waited for the start`);
    assert.deepEqual(await survivorsAfter(children, 5000), []);
    await waitUntil(() => kernelsIn(workspace).length === 0, 10_000, "no kernel in the workspace");
  });

  test("the SDK client's close() leaves no child process behind", async () => {
    const server = await startServer({ workspace: freshWorkspace("sdk-close"), stateDir: root });
    await runOk(server.client, "1");
    assert.deepEqual(await server.close(), []);
    assert.deepEqual(kernelsIn(server.workspace), []);
  });
});

describe("a kernel that cannot start", () => {
  test("execute_ipython_cell is an isError 'KernelStartError' naming the interpreter; the session stays up", async () => {
    const workspace = freshWorkspace("no-kernel");
    const server = await startServer({
      workspace, stateDir: root, args: ["mcp", "--workspace", workspace, "--python", "/bin/false"],
    });
    try {
      const result = await runCell(server.client, "1");
      assert.equal(result.isError, true);
      assert.match(textOf(result), /^KernelStartError: .*\/bin\/false/s);
      await server.client.ping();
      assert.equal((await callTool(server.client, "reset", {})).isError, true, "reset cannot succeed either");
    } finally {
      assert.deepEqual(await server.close(), []);
    }
  });
});
