// The codeact workflow as an agent lives it (issue 24): six everyday tasks scripted through
// `ipybox mcp` exactly as skills/codeact/SKILL.md tells an agent to do them, in two projects,
// once plain and once under --sandbox. Each step's result is asserted; the calls made and the
// bytes of tool output the agent reads are counted and printed (the goal for both runs
// together: at most 45 calls and 15 KB). Workspaces live under /var/tmp (the sandbox hides /tmp).
//
// The six tasks: (1) register a server, (2) compose tool calls in one code action, (3) save it
// as an action for every project, (4) find and reuse it in another project, (5) change the
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
  const sandboxed = mode === "sandboxed";
  const server = await startServer({
    workspace: project, stateDir: path.join(root, mode, "state"),
    env: { XDG_DATA_HOME: path.join(root, mode, "data"), ...(sandboxed ? { IPYBOX_SRT: SRT } : {}) },
    args: ["mcp", "--workspace", project, ...(sandboxed ? ["--sandbox"] : [])],
    capabilities: { elicitation: {} },
    onElicit: () => ({ action: "accept", content: { approve: true } }),
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

const PARSER = `"""Parses the text of fs.list_directory_with_sizes into entries."""

from typing import List

from ipybox_runtime.models import Field, ToolModel


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
`;

const RUN_PARSED = `

def run_parsed(params: Params) -> "List[Entry]":
    """run(), then mcpparse.fs.list_directory_with_sizes.parse() on its text."""
    from mcpparse.fs.list_directory_with_sizes import Entry, parse  # noqa: F401

    return parse(run(params).content)
`;

const py = (value) => JSON.stringify(value);

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
  // (2) Compose: search, read the interface, one cell.
  assert.match(await a.ok("search_tools", { query: "list a directory with file sizes", limit: 3 }),
    /mcptools\.fs\.list_directory_with_sizes/);
  assert.match(await a.cell("print(open('mcptools/fs/list_directory_with_sizes.py').read())"), /class Params/);
  assert.match(await a.cell(`from mcptools.fs import list_directory_with_sizes as listing
text = listing.run(listing.Params(path=${py(data)}, sortBy="size")).content
print([line.split()[1] for line in text.splitlines() if line.startswith("[FILE]")][:2])`),
  /\['big\.bin', 'medium\.txt'\]/);
  // (3) Save it for every project.
  const write = `from ipybox_runtime.gentools import new_gentool
package = new_gentool("files", "largest_files")
(package / "api.py").write_text(${py(API)})
(package / "impl.py").write_text(${py(IMPL)})
print(package)`;
  if (mode === "plain") {
    assert.match(await a.cell(write.replace('"largest_files")', '"largest_files", scope="user")')), /largest_files/);
    assert.match(await a.cell(`from ipybox_runtime.checks import check\nprint(check(["files.largest_files"]))`), /^ok/);
  } else {
    assert.match(await a.cell(write), /largest_files/);
    assert.match(await a.cell(`from ipybox_runtime.checks import check\nprint(check(["files.largest_files"]))`), /^ok/);
    assert.match(await a.cell(`from pathlib import Path
draft = Path("gentools/files/largest_files")
print(new_gentool("files", "largest_files", scope="user",
                  files={"api.py": (draft / "api.py").read_text(), "impl.py": (draft / "impl.py").read_text()}))`),
    /largest_files/);
  }

  // (4) Find and reuse it in another project.
  const b = await agentIn(projectB, mode, counts);
  makeFiles(projectB);
  assert.match(await b.ok("search_tools", { query: "largest files of a directory", limit: 3 }),
    /gentools\.files\.largest_files/);
  assert.match(await b.cell("import inspect, gentools.files.largest_files.api as api\nprint(inspect.getsource(api))"),
    /def run\(directory: str/);
  const missing = await b.call("execute_ipython_cell",
    { code: `from gentools.files.largest_files import run\nprint(run(${py(path.join(projectB, "data"))}))` });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /No module named 'mcptools/);
  await b.ok("register_mcp_server", { server_name: "fs", server_params: fsParams(projectB) });
  assert.match(await b.cell(`from gentools.files.largest_files import run\nprint(run(${py(path.join(projectB, "data"))}))`),
    /big\.bin/);

  // (5) Change the server and register it again; a parser and run_parsed were added first.
  assert.match(await a.cell(`import os
os.makedirs("mcpparse/fs", exist_ok=True)
open("mcpparse/fs/list_directory_with_sizes.py", "w").write(${py(PARSER)})
open("mcptools/fs/list_directory_with_sizes.py", "a").write(${py(RUN_PARSED)})
from mcptools.fs import list_directory_with_sizes as listing
import importlib; importlib.reload(listing)
print(len(listing.run_parsed(listing.Params(path=${py(data)}))))`), /^3$/);
  await a.ok("register_mcp_server", { server_name: "fs", server_params: fsParams(projectA + "/data") });
  const lost = await a.call("execute_ipython_cell", { code: `from mcptools.fs import list_directory_with_sizes as listing
print(listing.run_parsed)` });
  assert.equal(lost.isError, true);  // run_parsed was deleted without a word
  assert.match(await a.cell(`open("mcptools/fs/list_directory_with_sizes.py", "a").write(${py(RUN_PARSED)})
from ipybox_runtime.checks import check
print(check())`), /ok/);
  process.stdout.write(`# walkthrough ${mode}: ${counts.calls} calls, ${counts.bytes} bytes of tool output\n`);
  totals.calls += counts.calls;
  totals.bytes += counts.bytes;
  return counts;
}

test("the six tasks, plain: done as the skill says", async () => {
  await walkthrough("plain");
});

test("the six tasks, sandboxed: done as the skill says", async () => {
  assert.ok(fs.existsSync(SRT), "install the npm test peers: npm install --prefix tests/node");
  await walkthrough("sandboxed");
});
