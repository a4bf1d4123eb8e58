// The codeact workflow as an agent lives it (issue 24): six everyday tasks scripted through
// `ipybox mcp` exactly as skills/codeact/SKILL.md tells an agent to do them, in three projects,
// once plain and once under --sandbox. Each step's result is asserted; the calls made and the
// bytes of tool output the agent reads are counted and printed (the goal for both runs
// together: at most 45 calls and 15 KB). Workspaces live under /var/tmp (the sandbox hides /tmp).
//
// The six tasks: (1) register a server, (2) compose tool calls in one code action, (3) save it
// as an action for every project, (4) find and reuse it in another project (registering the
// server its search hit names; in a third project in one step, add_dependencies), (5) change the
// server and register it again, (6) all of it sandboxed.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";

import { FILESYSTEM, NODE_MODULES, callTool, removeDir, startServer, textOf } from "./support.mjs";

const SRT = path.join(NODE_MODULES, ".bin", "srt");
const root = fs.realpathSync(fs.mkdtempSync(path.join("/var/tmp", "ipybox-walkthrough-")));
const servers = [];
const totals = { calls: 0, bytes: 0 };

after(async () => {
  for (const server of servers) await server.close();
  removeDir(root);
  process.stdout.write(`# walkthrough total: ${totals.calls} calls, ${totals.bytes} bytes of tool output\n`);
});

// An agent in one project: every tool call is counted with the bytes of text it returns.
async function agentIn(project, mode, counts) {
  fs.mkdirSync(project, { recursive: true });
  const asked = [];  // the approval questions the user was shown
  const sandboxed = mode === "sandboxed";
  const server = await startServer({
    workspace: project, stateDir: path.join(root, mode, "state"),
    env: { XDG_DATA_HOME: path.join(root, mode, "data"), ...(sandboxed ? { IPYBOX_SRT: SRT } : {}) },
    args: ["mcp", "--workspace", project, ...(sandboxed ? ["--sandbox"] : [])],
    capabilities: { elicitation: {} },
    onElicit: (params) => {
      asked.push(params.message);
      return { action: "accept", content: { approve: true } };
    },
  });
  servers.push(server);
  const call = async (name, args = {}) => {
    const result = await callTool(server.client, name, args);
    const text = textOf(result);
    counts.calls += 1;
    counts.bytes += Buffer.byteLength(text);
    return { text, isError: result.isError === true };
  };
  return {
    call,
    asked,
    async ok(name, args) {
      const result = await call(name, args);
      assert.ok(!result.isError, `${name} failed:\n${JSON.stringify(args)}\n---\n${result.text}`);
      return result.text;
    },
    cell(code) { return this.ok("execute_ipython_cell", { code }); },
  };
}

const fsParams = (directory) => ({ command: "node", args: [FILESYSTEM, directory] });

function makeFiles(project) {
  fs.mkdirSync(path.join(project, "data"), { recursive: true });
  for (const [name, size] of [["big.bin", 9000], ["medium.txt", 4000], ["small.txt", 10]]) {
    fs.writeFileSync(path.join(project, "data", name), "x".repeat(size));
  }
}

const API = `"""The largest files of a directory, biggest first.

Use for "what takes the space in X". Calls fs.list_directory_with_sizes once.
"""

from typing import List

from ipybox_runtime.models import Field, ToolModel

__all__ = ["FileSize", "run"]


class FileSize(ToolModel):
    name: str = Field(..., description="File name")
    size: str = Field(..., description="Size as the server writes it")


def run(directory: str, limit: int = 3) -> List[FileSize]:
    """Returns the \`limit\` largest files directly in \`directory\`."""
    from . import impl

    return impl.run(directory=directory, limit=limit)
`;

const IMPL = `"""The work behind gentools.files.largest_files."""

from typing import List

from mcptools.fs import list_directory_with_sizes as listing

from .api import FileSize


def run(directory: str, limit: int = 3) -> List[FileSize]:
    text = listing.run(listing.Params(path=directory, sortBy="size")).content
    rows = [line.split(None, 2)[1:] for line in text.splitlines() if line.startswith("[FILE]")]
    return [FileSize(name=name, size=size.strip()) for name, size in rows[:limit]]
`;

// The companion of a text tool (skills/codeact/references/output-parsers.md): parse() and
// run_parsed() in mcpparse/, which registering the server again never touches.
const COMPANION = `"""Parses the text of fs.list_directory_with_sizes into entries."""

from typing import List

from ipybox_runtime.models import Field, ToolModel
from mcptools.fs import list_directory_with_sizes as tool


class Entry(ToolModel):
    name: str = Field(..., description="File or folder name")
    is_directory: bool = Field(..., description="A folder")


def parse(text: str) -> List[Entry]:
    entries = []
    for line in text.splitlines():
        if line.startswith(("[FILE]", "[DIR]")):
            kind, name = line.split(None, 2)[:2]
            entries.append(Entry(name=name, is_directory=kind == "[DIR]"))
    return entries


def run_parsed(params: tool.Params) -> List[Entry]:
    """tool.run(), then parse() on its text."""
    return parse(tool.run(params).content)
`;

const py = (value) => JSON.stringify(value);

// The call a search hit names for a missing server, decoded.
function registrationIn(hitText) {
  const found = hitText.match(/call register_mcp_server (\{.*\})$/m);
  assert.ok(found, hitText);
  return JSON.parse(found[1]);
}

async function walkthrough(mode) {
  const counts = { calls: 0, bytes: 0 };
  const projectA = path.join(root, mode, "projectA");
  const projectB = path.join(root, mode, "projectB");
  const a = await agentIn(projectA, mode, counts);
  makeFiles(projectA);
  const data = path.join(projectA, "data");

  // (1) Register a server.
  assert.match(await a.ok("register_mcp_server", { server_name: "fs", server_params: fsParams(projectA) }),
    /list_directory_with_sizes/);
  // (2) Compose: search (the hit's signature is the interface), then one cell.
  const hits = await a.ok("search_tools", { query: "list a directory with file sizes", limit: 3 });
  assert.match(hits, /from mcptools\.fs import list_directory_with_sizes {2}# mcptools\/fs\/list_directory_with_sizes\.py/);
  assert.match(hits, /list_directory_with_sizes\.Params\(path: str, sortBy: .*\) -> Result\(content: str\)/);
  assert.match(await a.cell(`from mcptools.fs import list_directory_with_sizes as listing
text = listing.run(listing.Params(path=${py(data)}, sortBy="size")).content
print([line.split()[1] for line in text.splitlines() if line.startswith("[FILE]")][:2])`),
  /\['big\.bin', 'medium\.txt'\]/);
  // (3) Save it for every project: the draft in the project, checked and copied in one cell.
  const saved = await a.cell(`from ipybox_runtime.gentools import new_gentool, save_gentool
package = new_gentool("files", "largest_files")
(package / "api.py").write_text(${py(API)})
(package / "impl.py").write_text(${py(IMPL)})
print(save_gentool("files", "largest_files", scope="user"))`);
  const userCopy = path.join(root, mode, "data", "ipybox", "gentools", "files", "largest_files");
  // The answer says where, then what it recorded: the project's folder as a placeholder that
  // the next project fills with its own.
  assert.equal(saved.split("\n")[0], `saved ${userCopy}`);
  assert.match(saved, /^  server fs: node \S+ \$\{IPYBOX_WORKSPACE\}$/m);
  const init = fs.readFileSync(path.join(userCopy, "__init__.py"), "utf8");
  assert.match(init, /REQUIRES: dict = \{'packages': \{\},\s+'servers': \{'fs': \{'args':/);

  // (4) Find and reuse it in another project: the hit says what is missing and the call.
  const b = await agentIn(projectB, mode, counts);
  makeFiles(projectB);
  const found = await b.ok("search_tools", { query: "largest files of a directory", limit: 2 });
  assert.match(found, /^1\. gentools\.files\.largest_files {2}\[gentool, user, NOT usable here\] {2}The largest files of a directory, biggest first\./);
  assert.match(found, /run\(directory: str, limit: int=3\) -> List\[FileSize\]/);
  const call = registrationIn(found);
  assert.equal(call.server_name, "fs");
  // Project A's folder was recorded as ${IPYBOX_WORKSPACE}: the call works here as it is, on
  // this project's folder (issue 41), and names no folder of project A's.
  assert.ok(call.server_params.args.includes("${IPYBOX_WORKSPACE}"), JSON.stringify(call));
  assert.ok(!JSON.stringify(call).includes(projectA), JSON.stringify(call));
  await b.ok("register_mcp_server", call);
  assert.match(await b.cell(`from gentools.files.largest_files import run\nprint(run(${py(path.join(projectB, "data"))}))`),
    /big\.bin/);

  // (4b) Or in one step, in a third project: ipybox adds what the action needs once the user
  // approves (the question names this project as what the placeholder stands for, and flags
  // nothing), then the action runs on this project's files: the server was given this folder.
  const projectC = path.join(root, mode, "projectC");
  const c = await agentIn(projectC, mode, counts);
  makeFiles(projectC);
  fs.writeFileSync(path.join(projectC, "data", "only-in-c.bin"), "c".repeat(9000));
  const oneStep = await c.cell(`from ipybox_runtime.requirements import add_dependencies
print(add_dependencies("gentools.files.largest_files"))
from gentools.files.largest_files import run
print(run(${py(path.join(projectC, "data"))}))`);
  assert.match(oneStep, /registered MCP server fs/);
  assert.match(oneStep, /only-in-c\.bin/);
  assert.equal(c.asked.length, 1);
  assert.ok(c.asked[0].includes(`  project:   ${JSON.stringify(projectC)} (what \${IPYBOX_WORKSPACE}`), c.asked[0]);
  assert.ok(!c.asked[0].includes("CHECK FIRST"), c.asked[0]);
  assert.ok(!c.asked[0].includes(projectA), c.asked[0]);

  // (5) Change the server and register it again: the companion parser in mcpparse/ is kept.
  assert.match(await a.cell(`import os
os.makedirs("mcpparse/fs", exist_ok=True)
open("mcpparse/fs/list_directory_with_sizes.py", "w").write(${py(COMPANION)})
from mcpparse.fs.list_directory_with_sizes import run_parsed
print(len(run_parsed(run_parsed.__globals__["tool"].Params(path=${py(data)}))))`), /^3$/);
  const again = await a.ok("register_mcp_server", { server_name: "fs", server_params: fsParams(data) });
  assert.doesNotMatch(again, /schema changed/);
  assert.match(await a.cell(`from ipybox_runtime.checks import check
print(check())`), /^ok +gentools\.files\.largest_files \(project\)[^\n]*\n1 actions checked, 0 broken$/);
  assert.ok(fs.existsSync(path.join(projectA, "mcpparse", "fs", "list_directory_with_sizes.py")));
  process.stdout.write(`# walkthrough ${mode}: ${counts.calls} calls, ${counts.bytes} bytes of tool output\n`);
  totals.calls += counts.calls;
  totals.bytes += counts.bytes;
  return { a, b, projectA };
}

test("the six tasks, plain: done as the skill says", async () => {
  const { a, projectA } = await walkthrough("plain");
  // Not part of the tasks (not counted): code written into a generated module is never lost
  // without a word; registering again refuses and names it.
  const module = path.join(projectA, "mcptools", "fs", "list_directory_with_sizes.py");
  fs.appendFileSync(module, "\n\ndef run_parsed(params):\n    return None\n");
  const refused = await a.call("register_mcp_server",
    { server_name: "fs", server_params: fsParams(projectA) });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /^not regenerated: mcptools\/fs\/ holds code written by hand that regenerating would delete:\n {2}mcptools\/fs\/list_directory_with_sizes\.py: def run_parsed\nMove it to mcpparse\/fs\/<tool>\.py/);
  assert.match(fs.readFileSync(module, "utf8"), /def run_parsed/);
});

test("the six tasks, sandboxed: done as the skill says", async () => {
  assert.ok(fs.existsSync(SRT), "install the npm test peers: npm install --prefix tests/node");
  const { b } = await walkthrough("sandboxed");
  // Not counted: a write the sandbox refuses names the protection and how to widen it.
  const outside = path.join(root, "outside.txt");
  const refused = await b.call("execute_ipython_cell", { code: `open(${py(outside)}, "w")` });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /OSError: \[Errno 30\] Read-only file system; \[ipybox\] refused by the sandbox \(--sandbox\): this kernel writes only inside the workspace .*filesystem\.allowWrite in \.claude\/ipybox-sandbox\.json/);
  assert.equal(fs.existsSync(outside), false);
});

test("the six tasks, plain and sandboxed, stay within the budget (45 calls, 15 KB)", () => {
  assert.equal(totals.calls > 0, true, "the walkthroughs ran first");
  assert.ok(totals.calls <= 45, `${totals.calls} calls`);
  assert.ok(totals.bytes <= 15 * 1024, `${totals.bytes} bytes`);
});
