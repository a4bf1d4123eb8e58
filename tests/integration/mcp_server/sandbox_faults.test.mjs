// Protections that survive faults (issue: a sandbox that holds across faults). A sandboxed
// kernel dies in every way we know of (os._exit in a cell and while idle, a segfault, its memory
// limit, a stopped process that the heartbeat ends, a timeout an interrupt cannot end, srt itself
// killed, a reset, ipybox killed with SIGKILL), and after each the next kernel (the promoted spare
// or a fresh one) tries to write every protected path of a workspace that has none of them yet.
// The same matrix without --sandbox is the control: there every write lands.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import {
  NODE_MODULES, callTool, descendants, listTree, removeDir, runCell, runOk, startServer, textOf,
} from "./support.mjs";

const SRT = path.join(NODE_MODULES, ".bin", "srt");
// Not under /tmp, which the sandbox hides whole: the workspace must be protected for what it holds.
const root = fs.realpathSync(fs.mkdtempSync(path.join("/var/tmp", "ipybox-faults-")));
const state = path.join(root, "state");
const servers = new Set();

// What the README promises to protect in a workspace, none of which exists at the start.
const PROTECTED = [
  ".mcp.json", "CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", ".envrc", ".env", "sandbox-config.json",
  ".git/config", ".git/hooks/pre-commit", ".claude/settings.json", ".claude/settings.local.json",
  ".claude/commands/evil.md", ".claude/hooks/evil.sh", ".claude/ipybox-sandbox.json",
  ".ipybox/evil.py", ".vscode/settings.json", ".idea/workspace.xml", ".bashrc", ".profile",
  ".gitconfig", ".gitmodules",
];

// Tries every protected path; prints the ones written, one per line, or '-'.
const PROBE = [
  "import os",
  `paths = ${JSON.stringify(PROTECTED)}`,
  "written = []",
  "for p in paths:",
  "    try:",
  "        if os.path.dirname(p):",
  "            os.makedirs(os.path.dirname(p), exist_ok=True)",
  "        with open(p, 'a') as f:",
  "            f.write('x')",
  "        written.append(p)",
  "    except OSError:",
  "        pass",
  "print('\\n'.join(sorted(written)) or '-')",
].join("\n");

const FAULTS = {
  "os._exit in a cell": { code: "import os\nos._exit(3)" },
  "os._exit while idle": {
    code: "import os, threading\nthreading.Timer(0.2, os._exit, (3,)).start()\nprint('armed')",
    settle: true,
  },
  "a segfault": { code: "import ctypes\nctypes.string_at(0)" },
  "the memory limit": { code: "hog = [b'x' * (64 << 20) for _ in range(40)]" },
  "a timeout an interrupt cannot end": {
    code: "import time\nwhile True:\n    try:\n        time.sleep(30)\n    except KeyboardInterrupt:\n        pass",
    extra: { timeout: 2 },
  },
  "a stopped kernel that the heartbeat ends": {
    code: "import os, signal\nos.kill(os.getpid(), signal.SIGSTOP)",
    extra: { timeout: 90 },
  },
  "srt killed under the kernel": { srt: true },
  "a reset": { reset: true },
};

function workspaceFor(label) {
  const workspace = path.join(root, label);
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, "notes.txt"), "ordinary\n");
  return workspace;
}

async function start(workspace, sandboxed) {
  const args = ["mcp", "--workspace", workspace, "--memory-limit", "1G", "--log-level", "info"];
  if (sandboxed) args.push("--sandbox");
  const server = await startServer({ workspace, stateDir: state, args, env: { IPYBOX_SRT: SRT } });
  servers.add(server);
  return server;
}

// The probe's result, from the kernel that follows the fault. A cell sent while a death is
// still being noticed fails with the death and the next one runs in the new kernel: one retry.
async function probe(server) {
  for (let attempt = 0; attempt < 2; attempt++) {
    const result = await runCell(server.client, PROBE);
    // The first cell after a death starts with ipybox's notice of it: the probe's lines follow.
    if (!result.isError) return textOf(result).split("\n").filter((line) => line && !line.startsWith("[ipybox]")).join("\n");
    if (attempt === 1) assert.fail(`the probe failed: ${textOf(result)}`);
  }
  return "";
}

async function inflict(server, fault) {
  if (fault.reset) {
    const result = await callTool(server.client, "reset");
    assert.ok(!result.isError, textOf(result));
    return;
  }
  if (fault.srt) {
    // The wrapper, sandboxed; the kernel process itself in the control, which has no wrapper.
    const pattern = server === plain ? /ipybox_runtime\.kernel_main/ : /sandbox-runtime|\/srt\b/;
    const victims = descendants(server.pid).filter((d) => pattern.test(d.command));
    assert.ok(victims.length > 0, `nothing matches ${pattern} under ipybox`);
    for (const victim of victims) process.kill(victim.pid, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return;
  }
  const result = await runCell(server.client, fault.code, fault.extra ?? {});
  if (fault.settle) {
    assert.equal(textOf(result), "armed");
    // The kernel ends by itself 0.2 s after the cell; the probe's retry covers the notice.
    await new Promise((resolve) => setTimeout(resolve, 1000));
  } else {
    assert.equal(result.isError, true, `the fault did not end the cell: ${textOf(result)}`);
  }
}

// Removes what a control round wrote, so that each round starts from the same workspace.
function resetWorkspace(workspace) {
  for (const entry of fs.readdirSync(workspace)) {
    if (entry !== "notes.txt" && !entry.startsWith("images")) {
      fs.rmSync(path.join(workspace, entry), { recursive: true, force: true });
    }
  }
}

function assertUntouched(workspace, when) {
  for (const file of PROTECTED) {
    const full = path.join(workspace, file);
    const content = fs.existsSync(full) && fs.statSync(full).isFile() ? fs.readFileSync(full, "utf8") : "";
    assert.equal(content, "", `${when}: ${file} was written on the host`);
  }
}

let plain;
let boxed;
let plainWorkspace;
let boxedWorkspace;

before(async () => {
  assert.ok(fs.existsSync(SRT), "install the npm test peers: npm install --prefix tests/node");
  plainWorkspace = workspaceFor("plain");
  boxedWorkspace = workspaceFor("boxed");
  plain = await start(plainWorkspace, false);
  boxed = await start(boxedWorkspace, true);
});

after(async () => {
  for (const server of servers) await server.close();
  removeDir(root);
});

for (const [name, fault] of Object.entries(FAULTS)) {
  test(`after ${name}, the next kernel writes no protected path (control: it does, unsandboxed)`, async () => {
    await inflict(plain, fault);
    assert.equal(await probe(plain), [...PROTECTED].sort().join("\n"), "control: every path writable");
    resetWorkspace(plainWorkspace);

    await inflict(boxed, fault);
    assert.equal(await probe(boxed), "-");
    assertUntouched(boxedWorkspace, name);
  });
}

test("after ipybox itself is killed (SIGKILL), a new session holds every protection", async () => {
  process.kill(boxed.pid, "SIGKILL");
  servers.delete(boxed);
  await boxed.client.close().catch(() => {});
  boxed = await start(boxedWorkspace, true);
  assert.equal(await probe(boxed), "-");
  assertUntouched(boxedWorkspace, "after SIGKILL");
});

test("a repository made during the session is protected from the next kernel on", async () => {
  // The user runs `git init` on the host while a kernel runs: .git fills with a real repository.
  execFileSync("git", ["init", "-q", boxedWorkspace]);
  const reset = await callTool(boxed.client, "reset");
  assert.ok(!reset.isError, textOf(reset));
  const written = await runOk(boxed.client, [
    "import os",
    "done = []",
    "for p in ['.git/config', '.git/hooks/pre-commit', '.git/HEAD']:",
    "    try:",
    "        open(p, 'a').write('x')",
    "        done.append(p)",
    "    except OSError:",
    "        pass",
    "print(done)",
  ].join("\n"));
  assert.equal(written, "[]");
  assert.doesNotMatch(fs.readFileSync(path.join(boxedWorkspace, ".git", "config"), "utf8"), /x$/);
  // The repository stays: deleting a protected path on the host while a spare kernel may be
  // starting races srt's own bookkeeping of that path (see SECURITY.md), which is not what
  // this test is about.
});

test("the placeholders go when the last sandboxed session ends, and nothing else is left", async () => {
  const second = await start(boxedWorkspace, true);
  assert.equal(await probe(second), "-");
  await boxed.close();
  servers.delete(boxed);
  // The second session still runs a kernel: its protections stay in place.
  assert.ok(fs.existsSync(path.join(boxedWorkspace, ".mcp.json")), "a placeholder went with the first session");
  assert.equal(await probe(second), "-");
  await second.close();
  servers.delete(second);
  // ipybox's own folders stay (.ipybox/site-packages for install_package, images/), and so does
  // the repository the user made in the .git placeholder.
  const left = listTree(boxedWorkspace).filter((entry) => !/^(images|\.ipybox|\.git)\//.test(entry));
  assert.deepEqual(left, ["notes.txt"]);
});
