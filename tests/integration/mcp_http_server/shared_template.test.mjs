// Over HTTP the server's unsandboxed kernels are forked from one kernel template (kernel module,
// shared_kernel_template.hpp). Each forked kernel must be what a cold one would be: its own
// folder and sys.path (its workspace's packages where a cold kernel has them), its own tool
// token, and nothing of another kernel's in what it inherits; a kernel whose own packages shadow
// a module the template imported starts cold and sees its own version. Controls: the same
// handles on a server with IPYBOX_FORK_KERNELS=0, whose kernels start cold.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { kernelsIn, waitUntil } from "../mcp_server/support.mjs";
import { call, cell, created, legacy, startHttp, text } from "./http_support.mjs";

// What a kernel says of itself: its parent, path, token, folder and the environment block it
// started with (/proc/self/environ: for a forked kernel, the template's memory).
const PROBE = `
import json, os, sys
with open("/proc/self/environ", "rb") as block:
    inherited = block.read().decode("utf-8", "replace")
print(json.dumps({"ppid": os.getppid(), "path": sys.path, "cwd": os.getcwd(),
                  "token": os.environ.get("IPYBOX_TOOL_TOKEN", ""), "inherited": inherited}))
`;

async function probe(client, kernelId) {
  const result = await cell(client, PROBE, kernelId);
  assert.ok(!result.isError, text(result));
  return JSON.parse(text(result).trim().split("\n").at(-1));
}

function commandLine(pid) {
  return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
}

// sys.path with the server's workspace written as <ws>, so that two servers' compare.
const portable = (entries, workspace) => entries.map((entry) => entry.replaceAll(workspace, "<ws>"));

test("handles are forked from one shared template, each as a cold kernel would be", async (t) => {
  const forking = await startHttp(t);
  const client = await legacy(t, forking.url);
  const seen = {};
  for (const folder of ["a", "b", "c"]) {
    const { kernel_id } = await created(client, { workspace: folder });
    seen[folder] = await probe(client, kernel_id);
  }
  const template = seen.a.ppid;
  assert.notEqual(template, forking.server.pid);
  assert.match(commandLine(template), /ipybox_runtime\.kernel_template/);
  for (const folder of ["b", "c"]) assert.equal(seen[folder].ppid, template, folder);

  const tokens = new Set(Object.values(seen).map((kernel) => kernel.token));
  assert.equal(tokens.size, 3, "each kernel has a token of its own");
  for (const [folder, kernel] of Object.entries(seen)) {
    assert.equal(kernel.cwd, path.join(forking.workspace, folder));
    const site = path.join(forking.workspace, folder, ".ipybox", "site-packages");
    assert.ok(kernel.path.includes(site), `${folder}: ${kernel.path}`);
    for (const other of ["a", "b", "c"].filter((name) => name !== folder)) {
      assert.ok(!kernel.path.some((entry) => entry.startsWith(path.join(forking.workspace, other))),
                `${folder} sees ${other}'s folder: ${kernel.path}`);
    }
    // No token at all in what it inherited from the template, its own or another's.
    assert.ok(!kernel.inherited.includes("IPYBOX_TOOL_TOKEN"), folder);
    for (const token of tokens) assert.ok(!kernel.inherited.includes(token), folder);
  }

  // The control: the same handles started cold have the same path, and there the environment
  // block does hold the kernel's token (the check above can see one).
  const cold = await startHttp(t, [], null, { IPYBOX_FORK_KERNELS: "0" });
  const coldClient = await legacy(t, cold.url);
  const { kernel_id } = await created(coldClient, { workspace: "a" });
  const coldA = await probe(coldClient, kernel_id);
  assert.notEqual(coldA.ppid, template);
  assert.ok(!commandLine(coldA.ppid).includes("kernel_template"));
  assert.deepEqual(portable(seen.a.path, forking.workspace), portable(coldA.path, cold.workspace));
  assert.ok(coldA.inherited.includes(`IPYBOX_TOOL_TOKEN=${coldA.token}`));
});

test("a handle whose own packages shadow a module the template imported starts cold", async (t) => {
  const { url, workspace, server } = await startHttp(t);
  const client = await legacy(t, url);
  const version = `import numpy, os; print(os.getppid(), numpy.__version__)`;
  const run = async (kernelId) => {
    const result = await cell(client, version, kernelId);
    assert.ok(!result.isError, text(result));
    const [ppid, numpyVersion] = text(result).trim().split(/\s+/);
    return { ppid: Number(ppid), numpyVersion };
  };
  // The control: a handle without such packages is forked and has the interpreter's numpy.
  const plain = await run((await created(client, { workspace: "plain" })).kernel_id);
  assert.notEqual(plain.ppid, server.pid);
  assert.match(commandLine(plain.ppid), /ipybox_runtime\.kernel_template/);
  assert.notEqual(plain.numpyVersion, "0.0+workspace");

  const site = path.join(workspace, "own", ".ipybox", "site-packages", "numpy");
  fs.mkdirSync(site, { recursive: true });
  fs.writeFileSync(path.join(site, "__init__.py"), '__version__ = "0.0+workspace"\n');
  const own = await run((await created(client, { workspace: "own" })).kernel_id);
  assert.equal(own.numpyVersion, "0.0+workspace");
  assert.notEqual(own.ppid, plain.ppid);

  // The template stays of use: the next plain handle is forked from it again.
  const after = await run((await created(client, { workspace: "plain2" })).kernel_id);
  assert.equal(after.ppid, plain.ppid);
});

test("a spare forked before a package lands in its workspace is not handed over at reset", async (t) => {
  const { url, workspace } = await startHttp(t);
  const client = await legacy(t, url);
  const { kernel_id } = await created(client, { workspace: "fast", fast_reset: true });
  const folder = path.join(workspace, "fast");
  // The current kernel and its spare, both forked.
  await waitUntil(() => kernelsIn(folder).length === 2, 60000, "the spare kernel");
  const site = path.join(folder, ".ipybox", "site-packages", "numpy");
  fs.mkdirSync(site, { recursive: true });
  fs.writeFileSync(path.join(site, "__init__.py"), '__version__ = "0.0+workspace"\n');
  const reset = await call(client, "reset", { kernel_id });
  assert.ok(!reset.isError, text(reset));
  const result = await cell(client, "import numpy; print(numpy.__version__)", kernel_id);
  assert.equal(text(result).trim(), "0.0+workspace");
});

test("kernels that one client's own limits stop do not cost the others their forks", async (t) => {
  const { url } = await startHttp(t);
  const client = await legacy(t, url);
  const parent = async (kernelId) =>
    Number(text(await cell(client, "import os; print(os.getppid())", kernelId)).trim());
  const template = await parent((await created(client, { workspace: "before" })).kernel_id);
  assert.match(commandLine(template), /ipybox_runtime\.kernel_template/);
  // More in a row than a shared template forgives of failures that are its own.
  for (let attempt = 0; attempt < 4; attempt++) {
    const refused = await call(client, "create_kernel", { workspace: "small", memory: "4M" });
    assert.ok(refused.isError);
    assert.match(text(refused), /memory limit of 4 MiB/);
  }
  assert.equal(await parent((await created(client, { workspace: "after" })).kernel_id), template);
});
