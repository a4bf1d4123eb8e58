// install_package with specs that need no package index: a local package directory, a
// git+file:// repository, and specs that must be refused. One ipybox server serves the file.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import {
  callTool, kernelsIn, listTree, makeTempDir, removeDir, runFailing, runOk, sleep, startServer, textOf, waitUntil,
} from "./support.mjs";

const root = makeTempDir("mcp-install");
const workspace = path.join(root, "workspace");
const sitePackages = path.join(workspace, ".ipybox", "site-packages");
let server;
let client;

// A package with a setup.py: <dir>/setup.py and <dir>/<name>/__init__.py defining VALUE.
function writePackage(dir, name, value) {
  fs.mkdirSync(path.join(dir, name), { recursive: true });
  fs.writeFileSync(path.join(dir, "setup.py"),
    `from setuptools import setup\nsetup(name=${JSON.stringify(name)}, version="0.1", packages=[${JSON.stringify(name)}])\n`);
  fs.writeFileSync(path.join(dir, name, "__init__.py"), `VALUE = ${JSON.stringify(value)}\n`);
}

function gitRepository(dir, name, value) {
  writePackage(dir, name, value);
  const git = (...args) => execFileSync("git", ["-C", dir, ...args], { stdio: "pipe" });
  git("init", "-q");
  git("add", ".");
  git("-c", "user.name=ipybox tests", "-c", "user.email=tests@ipybox.invalid", "commit", "-q", "-m", "tiny package");
}

before(async () => {
  // The server runs with a working directory other than the workspace, as under Claude Code.
  server = await startServer({ workspace, stateDir: root, cwd: root });
  client = server.client;
  // As between an agent's turns: the spare kernel (the next reset's kernel) is up before anything
  // is installed, so "importable after reset" covers a kernel that started before the install.
  await runOk(client, "1");
  await waitUntil(() => kernelsIn(workspace).length >= 2, 30_000, "the spare kernel to start");
  await sleep(2500);
});

after(async () => {
  const survivors = await server.close();
  removeDir(root);
  assert.deepEqual(survivors, [], "child processes outlived the server");
});

const install = (spec) => callTool(client, "install_package", { package_name: spec });

test("a local package directory installs into <workspace>/.ipybox/site-packages and imports at once", async () => {
  const dir = path.join(root, "local_pkg_src");
  writePackage(dir, "ipybox_local_pkg", "local");
  await runOk(client, "import sys\nbefore_install = set(sys.modules)");  // a running kernel, imports done
  const result = await install(dir);
  assert.ok(!result.isError, textOf(result));
  assert.match(textOf(result), /Successfully installed ipybox[-_]local[-_]pkg-0\.1/i);
  assert.ok(fs.existsSync(path.join(sitePackages, "ipybox_local_pkg", "__init__.py")));
  assert.equal(await runOk(client, "import ipybox_local_pkg\nprint(ipybox_local_pkg.VALUE, ipybox_local_pkg.__file__.startswith(" +
    `${JSON.stringify(sitePackages)}))`), "local True");
});

test("a git+file:// repository installs and imports at once", async () => {
  const dir = path.join(root, "git_pkg_src");
  gitRepository(dir, "ipybox_git_pkg", "from git");
  const result = await install(`git+file://${dir}`);
  assert.ok(!result.isError, textOf(result));
  assert.match(textOf(result), /Successfully installed ipybox[-_]git[-_]pkg/i);
  assert.equal(await runOk(client, "import ipybox_git_pkg\nprint(ipybox_git_pkg.VALUE)"), "from git");
});

test("a relative path is taken relative to the workspace (the kernel's working directory)", async () => {
  writePackage(path.join(workspace, "relative_pkg_src"), "ipybox_relative_pkg", "relative");
  const result = await install("./relative_pkg_src");
  assert.ok(!result.isError, `'./relative_pkg_src' was not found from the workspace:\n${textOf(result)}`);
  assert.equal(await runOk(client, "import ipybox_relative_pkg\nprint(ipybox_relative_pkg.VALUE)"), "relative");
});

for (const spec of ["-r x", "--index-url=http://127.0.0.1:9/simple", " -e .", "--target=/tmp"]) {
  test(`a spec starting with '-' (${JSON.stringify(spec)}) is refused without running pip`, async () => {
    const before = listTree(root);
    const started = Date.now();
    const result = await install(spec);
    assert.equal(result.isError, true);
    assert.match(textOf(result), /refused|not accepted/i);
    assert.doesNotMatch(textOf(result), /Could not open requirements file|Collecting|ERROR:/, "pip ran");
    assert.ok(Date.now() - started < 1000, "refused at once");
    assert.deepEqual(listTree(root), before);
  });
}

test("a spec pip cannot install is a tool error carrying pip's output", async () => {
  const result = await install(path.join(root, "there-is-no-such-package-dir"));
  assert.equal(result.isError, true);
  assert.match(textOf(result), /ERROR|does not exist|not a valid/i);
});

test("an empty or missing package_name is a tool error", async () => {
  assert.equal((await install("")).isError, true);
  const missing = await callTool(client, "install_package", {});
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /^Invalid arguments for install_package: /);
});

test("installed packages stay importable after reset", async () => {
  assert.ok(!(await callTool(client, "reset", {})).isError);
  assert.match(await runFailing(client, "ipybox_local_pkg"), /NameError/);
  assert.equal(await runOk(client, "import ipybox_local_pkg, ipybox_git_pkg\nprint(ipybox_local_pkg.VALUE, ipybox_git_pkg.VALUE)"),
    "local from git");
});
