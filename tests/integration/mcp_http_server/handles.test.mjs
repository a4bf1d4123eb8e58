// Kernels as handles over HTTP: create_kernel / list_kernels / destroy_kernel and kernel_id, with
// the real SDK clients of both eras. Each kernel has its own state and processes; another
// principal's id is unknown exactly like an id never made (with the owner's call as the control);
// the caps (--max-kernels, max_kernels, max_concurrent_cells) hold under a flood; an idle kernel
// is stopped after --kernel-ttl and leaves no process; SIGTERM leaves none either.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { NODE_MODULES, kernelsIn, makeTempDir, removeDir, sleep, waitUntil } from "../mcp_server/support.mjs";
import {
  ModernClient, call, cell, created, legacy, modern, startHttp, text,
} from "./http_support.mjs";

function tokenLine(principal, limits = "") {
  const token = crypto.randomBytes(32).toString("hex");
  return { token, line: `${token} ${principal} ${limits}`.trim() };
}

test("handles over HTTP: own state, own folder, listed, destroyed with their processes", async (t) => {
  const { url, workspace } = await startHttp(t);
  const client = await legacy(t, url);
  const tools = (await client.listTools()).tools;
  const names = tools.map((tool) => tool.name);
  for (const name of ["create_kernel", "list_kernels", "destroy_kernel"]) {
    assert.ok(names.includes(name), names.join(", "));
  }
  const execute = tools.find((tool) => tool.name === "execute_ipython_cell");
  assert.equal(execute.inputSchema.properties.kernel_id.type, "string");
  assert.match(tools.find((tool) => tool.name === "create_kernel").description,
               /idle TTL is 1800 s, and the server runs at most 16 kernels/);

  const a = await created(client, { workspace: "agent_a" });
  const b = await created(client);
  assert.notEqual(a.kernel_id, b.kernel_id);
  assert.equal(a.workspace, "agent_a");
  assert.equal(a.ttl_seconds, 1800);
  assert.equal(text(await cell(client, "import os; x = 'a'; print(os.getcwd())", a.kernel_id)),
               path.join(workspace, "agent_a"));
  assert.equal(text(await cell(client, "print(globals().get('x'))", b.kernel_id)), "None");
  assert.equal(text(await cell(client, "x = 'implicit'; print(x)")), "implicit");
  assert.equal(text(await cell(client, "print(x)", a.kernel_id)), "a");

  const listed = (await call(client, "list_kernels")).structuredContent.kernels;
  const ids = listed.map((kernel) => kernel.kernel_id);
  assert.ok(ids.includes(a.kernel_id) && ids.includes(b.kernel_id), JSON.stringify(listed));
  assert.ok(listed.some((kernel) => kernel.implicit), "the implicit kernel is listed");

  const kernelsOfA = kernelsIn(path.join(workspace, "agent_a"));
  assert.ok(kernelsOfA.length >= 1, "agent_a's kernel runs in its folder");
  const destroyed = await call(client, "destroy_kernel", { kernel_id: a.kernel_id });
  assert.ok(!destroyed.isError, text(destroyed));
  // Every process of it has ended by the answer.
  assert.deepEqual(kernelsIn(path.join(workspace, "agent_a")), []);
  const gone = await cell(client, "print(1)", a.kernel_id);
  assert.ok(gone.isError);
  assert.match(text(gone), /unknown kernel_id '[0-9a-f]{32}'.*Call create_kernel/);
  // The others are untouched.
  assert.equal(text(await cell(client, "print(x)")), "implicit");
  assert.equal(text(await cell(client, "print(globals().get('x'))", b.kernel_id)), "None");
});

test("a handle is one kernel; fast_reset keeps a spare; reset works either way", async (t) => {
  const { url, workspace } = await startHttp(t);
  const client = await legacy(t, url);
  const lean = await created(client, { workspace: "lean" });
  const fast = await created(client, { workspace: "fast", fast_reset: true });
  for (const { kernel_id: id } of [lean, fast]) {
    await cell(client, "value = 1", id);
    assert.ok(!(await call(client, "reset", { kernel_id: id })).isError);
    assert.equal(text(await cell(client, "print(globals().get('value'))", id)), "None");
  }
  // The lean one is a single kernel process; the fast one has a spare (and the template it is
  // forked from) beside its kernel.
  assert.equal(kernelsIn(path.join(workspace, "lean")).length, 1);
  await waitUntil(() => kernelsIn(path.join(workspace, "fast")).length >= 2, 30000,
                  "the fast handle's spare");
});

test("a 2026-07-28 client creates and uses a handle across stateless requests", async (t) => {
  const { url } = await startHttp(t);
  const client = await modern(t, url);
  const { kernel_id: id } = await created(client);
  assert.equal(text(await cell(client, "value = 28; print(value)", id)), "28");
  assert.equal(text(await cell(client, "print(value + 1)", id)), "29");
  assert.equal(text(await cell(client, "print(globals().get('value'))")), "None");
});

test("create_kernel refuses a folder outside the workspace and a bad kernel_id", async (t) => {
  const { url, workspace } = await startHttp(t);
  const client = await legacy(t, url);
  for (const folder of ["../escape", "/tmp", "a/../../b", ".git", "ok/.ipybox"]) {
    const result = await call(client, "create_kernel", { workspace: folder });
    assert.ok(result.isError, folder);
    assert.match(text(result), /"workspace" must be/, folder);
  }
  assert.ok(!fs.existsSync(path.join(workspace, "..", "escape")));
  // A link planted in the workspace does not lead a kernel out of it.
  const outside = makeTempDir("http-handles-outside");
  t.after(() => removeDir(outside));
  fs.symlinkSync(outside, path.join(workspace, "link"));
  const linked = await call(client, "create_kernel", { workspace: "link/inner" });
  assert.ok(linked.isError, text(linked));
  assert.deepEqual(fs.readdirSync(outside), []);
  // Control: a plain subfolder works.
  await created(client, { workspace: "plain/inner" });
  const notString = await call(client, "execute_ipython_cell", { code: "1", kernel_id: 7 });
  assert.ok(notString.isError);
  assert.match(text(notString), /"kernel_id" must be a string/);
  const unsandboxable = await call(client, "create_kernel", { memory: "lots" });
  assert.match(text(unsandboxable), /"memory" must be a size/);
});

test("a sandboxed handle cannot write into another handle's folder; unsandboxed, it can", async (t) => {
  const srt = path.join(NODE_MODULES, ".bin", "srt");
  assert.ok(fs.existsSync(srt), "install the npm test peers: npm install --prefix tests/node");
  const { url, workspace } = await startHttp(t, [], null, { IPYBOX_SRT: srt });
  const client = await legacy(t, url);
  const boxed = await created(client, { workspace: "boxed", sandbox: true });
  const open = await created(client, { workspace: "open" });
  assert.equal(boxed.sandboxed, true);
  assert.equal(open.sandboxed, false);
  const write = (where) =>
    `try:\n    open(${JSON.stringify(where)}, 'w').write('x'); print('wrote')\n` +
    "except OSError as e:\n    print('refused', type(e).__name__)";
  assert.equal(text(await cell(client, write(path.join(workspace, "boxed", "own.txt")), boxed.kernel_id)),
               "wrote");
  assert.match(text(await cell(client, write(path.join(workspace, "open", "planted.txt")), boxed.kernel_id)),
               /^refused/);
  assert.ok(!fs.existsSync(path.join(workspace, "open", "planted.txt")));
  // The control: the unsandboxed handle writes into the other's folder.
  assert.equal(text(await cell(client, write(path.join(workspace, "boxed", "planted.txt")), open.kernel_id)),
               "wrote");
});

test("a sandboxed handle without srt is refused, and no kernel starts", async (t) => {
  const { url, workspace } = await startHttp(t, [], null, { IPYBOX_SRT: "/nonexistent/srt" });
  const client = await legacy(t, url);
  const refused = await call(client, "create_kernel", { workspace: "boxed", sandbox: true });
  assert.ok(refused.isError);
  assert.match(text(refused), /cannot sandbox the kernel/);
  assert.deepEqual(kernelsIn(path.join(workspace, "boxed")), []);
  assert.ok(!(await call(client, "create_kernel", { workspace: "open" })).isError);  // control
});

test("another principal's kernel_id is unknown, as one never made; its owner uses it", async (t) => {
  const alice = tokenLine("alice");
  const bob = tokenLine("bob");
  const { url } = await startHttp(t, [], [alice.line, bob.line]);
  const asAlice = await legacy(t, url, alice.token);
  const asBob = await legacy(t, url, bob.token);
  const { kernel_id: id } = await created(asAlice);
  assert.equal(text(await cell(asAlice, "secret = 'alice only'; print(secret)", id)), "alice only");

  const stolen = await cell(asBob, "print(secret)", id);
  const invented = await cell(asBob, "print(secret)", crypto.randomBytes(16).toString("hex"));
  assert.ok(stolen.isError && invented.isError);
  // Not an oracle: the same words as for an id that never existed, but for the id itself.
  assert.equal(text(stolen).replace(id, "ID"), text(invented).replace(/[0-9a-f]{32}/, "ID"));
  assert.ok(!text(stolen).includes("alice only"));
  assert.ok((await call(asBob, "destroy_kernel", { kernel_id: id })).isError);
  const bobs = (await call(asBob, "list_kernels")).structuredContent.kernels;
  assert.ok(!bobs.some((kernel) => kernel.kernel_id === id));
  // Implicit kernels are per principal too.
  await cell(asAlice, "mine = 'alice'");
  assert.equal(text(await cell(asBob, "print(globals().get('mine'))")), "None");
  // The control: the owner still has it, unchanged.
  assert.equal(text(await cell(asAlice, "print(secret)", id)), "alice only");
});

test("caps: a flood of create_kernel stays within --max-kernels and max_kernels", async (t) => {
  const carol = tokenLine("carol", "max_kernels=2 max_concurrent_cells=1");
  const dave = tokenLine("dave");
  const { url, workspace } = await startHttp(t, ["--max-kernels", "4"], [carol.line, dave.line]);
  const asCarol = await legacy(t, url, carol.token);
  const asDave = await legacy(t, url, dave.token);
  const flood = await Promise.all(Array.from({ length: 12 }, (_, i) =>
    call(i % 2 ? asCarol : asDave, "create_kernel", { workspace: "flood" })));
  const made = flood.filter((result) => !result.isError);
  const refused = flood.filter((result) => result.isError).map(text);
  assert.equal(made.length, 4, refused.join("\n"));
  assert.ok(refused.every((message) =>
    /most kernels \(--max-kernels 4\)|'carol' already has its most kernels \(max_kernels=2\)/.test(message)),
    refused.join("\n"));
  const carols = (await call(asCarol, "list_kernels")).structuredContent.kernels;
  assert.equal(carols.length, 2);
  const daves = (await call(asDave, "list_kernels")).structuredContent.kernels;
  assert.equal(daves.length, 2);
  for (const { kernel_id: id } of daves) {
    assert.ok(!(await call(asDave, "destroy_kernel", { kernel_id: id })).isError);
  }
  // With room on the server, carol's implicit kernel would be her third: refused; dave's is made.
  const third = await cell(asCarol, "print(1)");
  assert.ok(third.isError);
  assert.match(text(third), /'carol' already has its most kernels \(max_kernels=2\)/);
  assert.equal(text(await cell(asDave, "print('dave')")), "dave");

  // One cell at a time for carol: a second while one runs is refused, then allowed (control).
  const [first] = carols;
  const [, second] = carols;
  const running = cell(asCarol, "import time; time.sleep(3); print('slept')", first.kernel_id);
  await sleep(800);
  const carolAgain = await legacy(t, url, carol.token);  // another session, the same principal
  const busy = await cell(carolAgain, "print(2)", second.kernel_id);
  assert.ok(busy.isError, text(busy));
  assert.match(text(busy), /max_concurrent_cells=1/);
  assert.equal(text(await running), "slept");
  assert.equal(text(await cell(asCarol, "print(2)", second.kernel_id)), "2");

  for (const { kernel_id: id } of carols) {
    assert.ok(!(await call(asCarol, "destroy_kernel", { kernel_id: id })).isError);
  }
  assert.deepEqual(kernelsIn(path.join(workspace, "flood")), []);
});

test("a principal's memory budget bounds the sum of its kernels' limits", async (t) => {
  const erin = tokenLine("erin", "memory=1G");
  const frank = tokenLine("frank");
  const { url, workspace } = await startHttp(t, ["--memory-limit", "512M"], [erin.line, frank.line]);
  const asErin = await legacy(t, url, erin.token);
  await created(asErin, { workspace: "e1" });                    // 512 MiB of 1 GiB
  await created(asErin, { workspace: "e2", memory: "256M" });    // 768 MiB
  const over = await call(asErin, "create_kernel", { workspace: "e3" });
  assert.ok(over.isError);
  assert.match(text(over), /'erin' has 256 MiB of its memory budget \(1 GiB\) left, and this kernel's limit is 512 MiB/);
  assert.ok(!fs.existsSync(path.join(workspace, "e3")), "a refused kernel makes no folder");
  await created(asErin, { workspace: "e3", memory: "256M" });    // 1 GiB: fits exactly
  // The control: a principal without a budget is not held to hers.
  const asFrank = await legacy(t, url, frank.token);
  for (const folder of ["f1", "f2", "f3"]) await created(asFrank, { workspace: folder });
});

test("an idle kernel is stopped after --kernel-ttl, the implicit one too; nothing is left", async (t) => {
  const { url, workspace } = await startHttp(t, ["--kernel-ttl", "2"]);
  const client = await legacy(t, url);
  await cell(client, "kept = 'yes'");
  const { kernel_id: id } = await created(client, { workspace: "short" });
  // A kernel is idle only without a call: a cell longer than the TTL keeps it.
  assert.equal(text(await cell(client, "import time; time.sleep(5); print('alive')", id)), "alive");
  assert.equal(text(await cell(client, "print('still')", id)), "still");
  assert.ok(kernelsIn(path.join(workspace, "short")).length >= 1);
  await waitUntil(() => kernelsIn(path.join(workspace, "short")).length === 0, 15000,
                  "the idle kernel's processes to end");
  const expired = await cell(client, "print(1)", id);
  assert.ok(expired.isError);
  assert.match(text(expired), /idle for more than 2 s/);
  // The implicit kernel has gone too (nothing runs once the clients are idle past the TTL); the
  // next call without kernel_id starts a fresh one.
  await waitUntil(() => kernelsIn(workspace).length === 0, 15000, "the implicit kernel to end");
  assert.equal(text(await cell(client, "print(globals().get('kept'))")), "None");
});

test("with tokens, idle handles and implicit kernels are stopped after --kernel-ttl too", async (t) => {
  const gina = tokenLine("gina");
  const { url, workspace } = await startHttp(t, ["--kernel-ttl", "2"], [gina.line]);
  const client = await legacy(t, url, gina.token);
  assert.equal(text(await cell(client, "implicit_value = 1; print('implicit')")), "implicit");
  const { kernel_id: id } = await created(client, { workspace: "tokened" });
  assert.equal(text(await cell(client, "print('handle')", id)), "handle");
  await waitUntil(() => kernelsIn(path.join(workspace, "tokened")).length === 0 &&
                        kernelsIn(workspace).length === 0, 15000, "both kernels to be stopped");
  assert.match(text(await cell(client, "print(1)", id)), /unknown kernel_id/);
  // The implicit kernel is made again, fresh.
  assert.equal(text(await cell(client, "print(globals().get('implicit_value'))")), "None");
});

test("SIGTERM stops every kernel of every handle", async (t) => {
  const { url, workspace, server, exited } = await startHttp(t);
  const client = await legacy(t, url);
  await created(client, { workspace: "one" });
  await created(client, { workspace: "two" });
  await cell(client, "print(1)");
  server.kill("SIGTERM");
  assert.equal(await exited, 143);
  for (const folder of [workspace, path.join(workspace, "one"), path.join(workspace, "two")]) {
    assert.deepEqual(kernelsIn(folder), [], folder);
  }
});
