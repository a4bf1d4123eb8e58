// `ipybox mcp` driven by the MCP Inspector's command-line mode (`mcp-inspector --cli`), the
// scripted client most MCP server authors check against. The Inspector comes from tests/node
// (npm install --prefix tests/node); it keeps state under ~/.mcp-inspector, so HOME is a
// temporary directory. A missing Inspector or binary fails the test.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const inspector = path.join(repo, "tests", "node", "node_modules", ".bin", "mcp-inspector");
const ipybox = path.resolve(process.env.IPYBOX_BIN || path.join(repo, "build", "native", "cli", "ipybox"));
assert.ok(fs.existsSync(inspector), `${inspector} is missing: run npm install --prefix tests/node`);
assert.ok(fs.existsSync(ipybox), `the ipybox binary is missing at ${ipybox}: build it and set IPYBOX_BIN`);

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "ipybox-inspector-")));
const home = path.join(root, "home");
const workspace = path.join(root, "workspace");
fs.mkdirSync(home);
after(() => fs.rmSync(root, { recursive: true, force: true }));

// Runs the Inspector against a fresh `ipybox mcp` and returns its exit status and its JSON answer:
// stdout, or for errors the Inspector's JSON line on stderr (after the server's log lines).
function inspect(...args) {
  const run = spawnSync(inspector, ["--cli", ipybox, "mcp", "--workspace", workspace, ...args], {
    env: { ...process.env, HOME: home, XDG_STATE_HOME: path.join(home, ".local", "state") },
    encoding: "utf8",
    timeout: 120_000,
  });
  assert.equal(run.error, undefined, String(run.error));
  const errorLine = run.stderr.split("\n").reverse().find((line) => line.startsWith("{"));
  let output;
  try {
    output = JSON.parse(run.stdout.trim() ? run.stdout : errorLine);
  } catch {
    assert.fail(`the Inspector printed no JSON (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  }
  return { status: run.status, output, stderr: run.stderr };
}

test("the Inspector lists the five tools with their input schemas (tools/list --strict)", () => {
  const { status, output, stderr } = inspect("--method", "tools/list", "--strict");
  assert.equal(status, 0, stderr);
  assert.deepEqual(output.tools.map((tool) => tool.name),
    ["register_mcp_server", "install_package", "execute_ipython_cell", "search_tools", "reset"]);
  const execute = output.tools.find((tool) => tool.name === "execute_ipython_cell");
  assert.deepEqual(execute.inputSchema.required, ["code"]);
});

test("the Inspector calls execute_ipython_cell and gets the printed text", () => {
  const { status, output, stderr } = inspect("--method", "tools/call", "--tool-name", "execute_ipython_cell",
    "--tool-arg", "code=print(6*7)");
  assert.equal(status, 0, stderr);
  assert.deepEqual(output, { content: [{ type: "text", text: "42" }] });
});

test("the Inspector passes numeric arguments through (max_output_chars=10 clips the output)", () => {
  const { status, output, stderr } = inspect("--method", "tools/call", "--tool-name", "execute_ipython_cell",
    "--tool-arg", "code=print('x' * 50)", "max_output_chars=10");
  assert.equal(status, 0, stderr);
  assert.match(output.content[0].text, /^xxxx\n\n\[\.\.\. 40 characters omitted; the full output is in \S+ \.\.\.\]\n\nxxxxxx$/);
});

test("an exception reaches the Inspector as an isError result with the traceback", () => {
  const { status, output } = inspect("--method", "tools/call", "--tool-name", "execute_ipython_cell",
    "--tool-arg", "code=1/0");
  assert.notEqual(status, 0, "the Inspector exits non-zero on a tool error");
  assert.equal(output.isError, true);
  assert.match(output.content[0].text, /^ZeroDivisionError: division by zero\n/);
});

test("an unknown tool is reported by the Inspector as tool_not_found", () => {
  const { status, output } = inspect("--method", "tools/call", "--tool-name", "no_such_tool");
  assert.notEqual(status, 0);
  assert.equal(output.error.code, "tool_not_found");
});
