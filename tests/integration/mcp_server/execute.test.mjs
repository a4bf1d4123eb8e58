// execute_ipython_cell through the SDK client: results, errors, output limits, timeouts, images,
// cancellation, progress and the order of concurrent requests. One server serves the whole file;
// tests that leave the kernel in a particular state say so.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import {
  McpError, callTool, makeTempDir, removeDir, runCell, runFailing, runOk, sleep, startServer, textOf,
} from "./support.mjs";

const root = makeTempDir("mcp-execute");
const workspace = path.join(root, "workspace");
let server;
let client;

before(async () => {
  server = await startServer({ workspace, stateDir: root });
  client = server.client;
});

after(async () => {
  const survivors = await server.close();
  removeDir(root);
  assert.deepEqual(survivors, [], "child processes outlived the server");
});

// ---- results ----------------------------------------------------------------------------------

test("the kernel runs in the workspace, which is created if missing", async () => {
  assert.equal(await runOk(client, "import os; print(os.getcwd())"), workspace);
});

test("state persists across calls", async () => {
  await runOk(client, "persisted = [1, 2]\ndef double(x):\n    return 2 * x");
  assert.equal(await runOk(client, "persisted.append(3); print(double(sum(persisted)))"), "12");
});

test("the value of the last expression is returned like IPython's Out", async () => {
  assert.equal(await runOk(client, "1 + 1"), "2");
  assert.equal(await runOk(client, "'ab' * 2"), "'abab'");
  assert.equal(await runOk(client, "print('out')\n40 + 2"), "out\n42");
});

test("a cell without output returns an empty text", async () => {
  const result = await runCell(client, "x = None\nx");
  assert.ok(!result.isError);
  assert.equal(textOf(result), "");
});

test("stderr is returned with stdout", async () => {
  const text = await runOk(client, "import sys\nprint('to stdout')\nprint('to stderr', file=sys.stderr)");
  assert.match(text, /to stdout/);
  assert.match(text, /to stderr/);
});

test("top-level await works", async () => {
  assert.equal(await runOk(client, "import asyncio\nawait asyncio.sleep(0.01)\n'awaited'"), "'awaited'");
});

// ---- errors -----------------------------------------------------------------------------------

test("an exception is isError with '<ename>: <evalue>' and the traceback, after the output printed before it", async () => {
  const text = await runFailing(client, "print('before the error')\ndef fail():\n    raise ValueError('test error')\nfail()");
  const printed = text.indexOf("before the error");
  const error = text.indexOf("ValueError: test error");
  assert.ok(printed >= 0 && error > printed, text);
  assert.match(text.slice(error), /Traceback[\s\S]*fail\(\)/, "the traceback follows the error line");
  assert.equal(text.split("ValueError: test error").length, 2, `said once (issue 41): ${text}`);
  assert.doesNotMatch(text, /\x1b\[/, "no ANSI colour codes");
});

test("a SyntaxError is reported as a tool error", async () => {
  assert.match(await runFailing(client, "def broken(:\n    pass"), /SyntaxError/);
});

test("an exception does not lose the kernel's state", async () => {
  await runOk(client, "kept_after_error = 'still here'");
  await runFailing(client, "1 / 0");
  assert.equal(await runOk(client, "print(kept_after_error)"), "still here");
});

// ---- invalid arguments --------------------------------------------------------------------------

const marks = "invalid_ran = True";  // what each call would run if it were accepted
const invalid = [
  ["missing code", {}],
  ["code that is not a string", { code: 5 }],
  ["max_output_chars = 0", { code: marks, max_output_chars: 0 }],
  ["negative max_output_chars", { code: marks, max_output_chars: -5 }],
  ["max_output_chars that is not an integer", { code: marks, max_output_chars: 10.5 }],
  ["max_output_chars given as a string", { code: marks, max_output_chars: "100" }],
  ["timeout = 0", { code: marks, timeout: 0 }],
  ["negative timeout", { code: marks, timeout: -1 }],
  ["timeout given as a string", { code: marks, timeout: "5" }],
];
for (const [what, args] of invalid) {
  test(`${what} is a tool error 'Invalid arguments for execute_ipython_cell: ...' and runs nothing`, async () => {
    await runOk(client, "invalid_ran = False");
    const result = await client.callTool({ name: "execute_ipython_cell", arguments: args });
    assert.equal(result.isError, true, textOf(result));
    assert.match(textOf(result), /^Invalid arguments for execute_ipython_cell: /);
    assert.equal(await runOk(client, "print(invalid_ran)"), "False");
  });
}

// ---- output limits ------------------------------------------------------------------------------

const numberedLines = "for i in range(2000):\n    print(f'line {i:05d}')";  // 2000 x 11 chars = 22000
const fullNumbered = Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(5, "0")}`).join("\n") + "\n";

test("output over max_output_chars keeps the head (40%) and the tail (60%) with a marker in between", async () => {
  const text = await runOk(client, numberedLines, { max_output_chars: 1000 });
  const marker = text.match(/\n*\[\.\.\. (\d+) characters omitted; the full output is in (\S+) \.\.\.\]\n*/);
  assert.ok(marker, `no omission marker in:\n${text}`);
  const head = text.slice(0, marker.index);
  const tail = text.slice(marker.index + marker[0].length);
  assert.ok(head.startsWith("line 00000\nline 00001\n"), "the head is the beginning");
  assert.ok(tail.trimEnd().endsWith("line 01998\nline 01999"), "the tail is the end");
  assert.ok(head.length >= 390 && head.length <= 410, `head ${head.length} chars`);
  assert.ok(tail.length >= 590 && tail.length <= 610, `tail ${tail.length} chars`);
  assert.equal(Number(marker[1]), fullNumbered.trimEnd().length - 1000);
});

test("the full output of a clipped cell is saved to the file the marker names", async () => {
  const text = await runOk(client, numberedLines, { max_output_chars: 500 });
  const file = text.match(/the full output is in (\S+) \.\.\.\]/)[1];
  assert.ok(path.isAbsolute(file), file);
  assert.ok(fs.existsSync(file), `${file} does not exist`);
  const saved = fs.readFileSync(file, "utf8");
  assert.equal(saved.trimEnd(), fullNumbered.trimEnd());
});

test("a traceback after long output survives clipping (the tail is kept)", async () => {
  const text = await runFailing(client,
    "print('x' * 20000)\nraise RuntimeError('the error at the end')", { max_output_chars: 2000 });
  assert.match(text, /characters omitted/);
  assert.match(text, /RuntimeError: the error at the end/);
});

test("max_output_chars counts characters, not bytes, and never splits a character", async () => {
  const text = await runOk(client, "print('é' * 3000 + '€' * 3000)", { max_output_chars: 100 });
  const [head, tail] = text.split(/\n*\[\.\.\. \d+ characters omitted[^\]]*\]\n*/);
  assert.equal(head, "é".repeat(40));
  assert.equal(tail.trimEnd(), "€".repeat(60));
  assert.doesNotMatch(text, /\uFFFD/);
});

test("a cell printing 50 MB keeps ipybox under 64 MiB and returns its head, its tail and the omission", async () => {
  const highWater = () => Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${server.pid}/status`, "utf8"))[1]) / 1024;
  const text = await runOk(server.client,
    "line = 'x' * 1023\nprint('BEGIN')\nfor i in range(50 * 1024): print(line)\nprint('END')");
  assert.match(text, /^BEGIN\n/);
  assert.match(text, /\nEND\n\n\[ipybox\] \d+ bytes of output were dropped while the cell ran \(output cap\)$/);
  assert.match(text, /characters omitted; the full output is in /);
  const peak = highWater();
  assert.ok(peak < 64, `ipybox mcp peaked at ${peak.toFixed(1)} MiB`);
});

test("output within the limit is returned whole, without a marker", async () => {
  const text = await runOk(client, "print('y' * 999)", { max_output_chars: 1000 });
  assert.equal(text, "y".repeat(999));
});

// ---- timeouts -----------------------------------------------------------------------------------

test("a timeout is isError 'TimeoutError: ... timeout of X.XX s. The kernel was interrupted; its state ... was kept.'", async () => {
  await runOk(client, "before_timeout = 'kept'");
  const started = Date.now();
  const text = await runFailing(client, "import time\nprint('started')\ntime.sleep(30)", { timeout: 1 });
  assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  const error = text.indexOf("TimeoutError: Code execution exceeded the timeout of 1.00 s. The kernel was interrupted; its state");
  assert.ok(error >= 0, text);
  assert.ok(text.indexOf("started") < error, "output printed before the timeout comes first");
  assert.match(text, /was kept\.$/);
  assert.equal(await runOk(client, "print(before_timeout)"), "kept");
});

test("a cell that ignores the interrupt is stopped by a restart and the timeout error says the state was lost", async () => {
  await runOk(client, "before_restart = 1");
  const text = await runFailing(client,
    "import time\nwhile True:\n    try:\n        time.sleep(5)\n    except KeyboardInterrupt:\n        pass",
    { timeout: 0.5 });
  assert.match(text, /^TimeoutError: Code execution exceeded the timeout of 0\.50 s/);
  assert.match(text, /restarted.*lost/s);
  assert.match(await runFailing(client, "before_restart"), /NameError/);
});

// ---- images -------------------------------------------------------------------------------------

test("a matplotlib plot comes back as image content and as a saved file named in 'Generated images:'", async () => {
  const result = await runCell(client,
    "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title('ipybox')\nplt.show()");
  assert.ok(!result.isError, textOf(result));
  const images = result.content.filter((block) => block.type === "image");
  assert.equal(images.length, 1);
  assert.equal(images[0].mimeType, "image/png");
  assert.deepEqual([...Buffer.from(images[0].data, "base64").subarray(0, 8)],
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const text = textOf(result);
  assert.match(text, /Generated images:/);
  const link = text.match(/- \[([^\]]+)\]\(([^)]+)\)/);
  assert.ok(link, text);
  assert.ok(path.isAbsolute(link[2]) && link[2].startsWith(workspace), link[2]);
  assert.ok(fs.existsSync(link[2]), `${link[2]} does not exist`);
  assert.deepEqual(fs.readFileSync(link[2]), Buffer.from(images[0].data, "base64"));
});

test("images: 'paths' lists a plot's file and sends no image content (the default sends it: the test above)", async () => {
  const result = await runCell(client,
    "import matplotlib.pyplot as plt\nplt.plot([3, 1, 2])\nplt.show()", { images: "paths" });
  assert.ok(!result.isError, textOf(result));
  assert.deepEqual(result.content.map((block) => block.type), ["text"]);
  const link = textOf(result).match(/- \[([^\]]+)\]\(([^)]+\.png)\)/);
  assert.ok(link && fs.existsSync(link[2]), textOf(result));
  assert.ok(Buffer.byteLength(textOf(result)) < 1024);
});

test("images beyond 8 MiB in one result are listed as files, not inlined, so the result stays bounded", async () => {
  const result = await callTool(server.client, "execute_ipython_cell", { code: [
    "import base64, os",
    "from IPython.display import publish_display_data",
    "for _ in range(12):",
    "    publish_display_data({'image/png': base64.b64encode(b'\\x89PNG' + os.urandom(1024 * 1024)).decode()})",
  ].join("\n") });
  assert.ok(!result.isError, textOf(result));
  const inline = result.content.filter((block) => block.type === "image").length;
  assert.ok(inline >= 1 && inline < 12, `${inline} images inline`);
  assert.match(textOf(result), new RegExp(`${12 - inline} of these images are not included in this result`));
  assert.equal((textOf(result).match(/^- \[/gm) ?? []).length, 12, "every image is listed as a file");
});

test("100 images of 6 MB from one cell: those past the 32 MiB image budget are dropped and counted, ipybox stays under 128 MiB", async () => {
  // A server of its own: its high-water mark is this cell's alone.
  const own = await startServer({ workspace: path.join(root, "images-flood"), stateDir: root });
  try {
    const highWater = () => Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${own.pid}/status`, "utf8"))[1]) / 1024;
    const result = await callTool(own.client, "execute_ipython_cell", { code: [
      "import base64, os",
      "from IPython.display import publish_display_data",
      "image = base64.b64encode(b'\\x89PNG' + os.urandom(6_000_000)).decode()",
      "for _ in range(100):",
      "    publish_display_data({'image/png': image})",
      "print('done')",
    ].join("\n"), timeout: 300 });
    const peak = highWater();
    assert.ok(peak < 128, `ipybox mcp peaked at ${peak.toFixed(1)} MiB`);
    const text = textOf(result);
    assert.ok(!result.isError, text);
    // 8,000,008 characters each: four fit in 32 MiB, and the rest are counted, not kept.
    assert.match(text, /\[ipybox\] \d+ images displayed by this code were left out: over the 32 MiB of images one execution may display/);
    assert.equal((text.match(/^- \[/gm) ?? []).length, 4, text.slice(0, 2000));
  } finally {
    assert.deepEqual(await own.close(), [], "child processes outlived the server");
  }
});

test("the image links survive clipping of long output", async () => {
  const result = await runCell(client,
    "import matplotlib.pyplot as plt\nprint('z' * 5000)\nplt.plot([1, 2])\nplt.show()", { max_output_chars: 300 });
  const text = textOf(result);
  assert.match(text, /characters omitted/);
  assert.match(text, /Generated images:\n\n- \[[^\]]+\]\([^)]+\.png\)/);
  assert.equal(result.content.filter((block) => block.type === "image").length, 1);
});

// ---- cancellation, progress, ordering ----------------------------------------------------------

test("notifications/cancelled (AbortSignal) interrupts the running cell; the kernel keeps its state", async () => {
  await runOk(client, "cancel_state = 'before'");
  const controller = new AbortController();
  let progressed = false;
  const call = runCell(client,
    "import time\ncancel_state = 'running'\ntime.sleep(60)\ncancel_state = 'finished'",
    {}, { signal: controller.signal, onprogress: () => { progressed = true; } });
  const started = Date.now();
  while (!progressed && Date.now() - started < 20_000) await sleep(20);  // the cell is running
  controller.abort("the test cancels");
  await assert.rejects(call);
  const after = Date.now();
  assert.equal(await runOk(client, "print(cancel_state)"), "running");
  assert.ok(Date.now() - after < 10_000, "the next cell ran soon after the cancellation");
});

test("with a progressToken, progress notifications arrive about every second while a cell runs", async () => {
  const updates = [];
  const result = await runCell(client,
    "import time\nfor step in range(4):\n    print(f'step {step}', flush=True)\n    time.sleep(0.8)\n'done'",
    {}, { onprogress: (update) => updates.push(update) });
  assert.equal(textOf(result).trimEnd().split("\n").at(-1), "'done'");
  assert.ok(updates.length >= 2 && updates.length <= 5, `${updates.length} updates`);
  for (let i = 1; i < updates.length; ++i) assert.ok(updates[i].progress > updates[i - 1].progress);
  assert.ok(updates.some((update) => /step \d/.test(update.message ?? "")),
    `progress messages carry the last output line: ${JSON.stringify(updates)}`);
});

test("a request that arrives while a cell runs is queued and answered after it, in arrival order", async () => {
  await runOk(client, "order = []");
  const first = runCell(client, "import time\ntime.sleep(1.5)\norder.append('first')\nprint(order)");
  const second = runCell(client, "order.append('second')\nprint(order)");
  const third = runCell(client, "order.append('third')\nprint(order)");
  const texts = (await Promise.all([first, second, third])).map(textOf);
  assert.deepEqual(texts, ["['first']", "['first', 'second']", "['first', 'second', 'third']"]);
});

test("a request cancelled while it waits in the queue never runs", async () => {
  await runOk(client, "queued_ran = False");
  const controller = new AbortController();
  const running = runCell(client, "import time\ntime.sleep(1.5)\n'first'");
  const queued = runCell(client, "queued_ran = True", {}, { signal: controller.signal });
  await sleep(300);
  controller.abort("cancel the queued one");
  await assert.rejects(queued);
  assert.equal(textOf(await running), "'first'");
  assert.equal(await runOk(client, "print(queued_ran)"), "False");
});

test("an unknown tool name is a JSON-RPC error, the session stays usable", async () => {
  await assert.rejects(client.callTool({ name: "execute_python", arguments: { code: "1" } }),
    (error) => error instanceof McpError && error.code === -32602);
  assert.equal(await runOk(client, "'usable'"), "'usable'");
});
