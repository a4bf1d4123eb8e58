// The codeact skill's examples run (issue 24, seam 8): every ```python block of skills/codeact/
// (SKILL.md, then the references in the order the workflow reads them) runs, in order, as one
// execute_ipython_cell of one `ipybox mcp` whose project has server-everything and
// server-filesystem registered, as the skill tells an agent to register them. The line right
// before a block may mark it:
//   <!-- skill-example: file <path> -->    the block is a file the agent writes (an mcpparse
//                                          module, a saved action's api.py): the test writes it
//                                          to <path> in the project, as a file-editing tool would
//   <!-- skill-example: append <path> -->  the block is added to the end of a file an earlier
//                                          block wrote (run_parsed() under parse())
//   <!-- skill-example: not run (why) -->  the block is not run
// Later blocks import and call what the file blocks wrote. The counts of each kind are pinned,
// so that a new unmarked block is a block that must run.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";

import { FILESYSTEM, REPO, callTool, everythingParams, startServer, textOf } from "./support.mjs";

const SKILL = path.join(REPO, "skills", "codeact");
const ORDER = ["SKILL.md", "references/servers.md", "references/discovery.md",
  "references/code-actions.md", "references/output-parsers.md", "references/saving-actions.md"];
const MARK = /^<!-- skill-example: (?:not run \((?<why>.+)\)|(?<kind>file|append) (?<file>\S+)) -->$/;

const root = fs.realpathSync(fs.mkdtempSync(path.join("/var/tmp", "ipybox-skill-examples-")));
const project = path.join(root, "project");
let server;

after(async () => {
  if (server) await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

// [{ file, line, code, skipped: reason or null, write: { kind, file } or null }] in reading order.
function examples() {
  const found = [];
  const listed = fs.readdirSync(path.join(SKILL, "references")).map((name) => `references/${name}`);
  assert.deepEqual([...listed].sort(), ORDER.slice(1).sort(), "a reference file the test does not read");
  for (const file of ORDER) {
    const lines = fs.readFileSync(path.join(SKILL, file), "utf8").split("\n");
    for (let index = 0; index < lines.length; index += 1) {
      const fence = /^( *)```python$/.exec(lines[index]);
      if (!fence) continue;
      const indent = fence[1].length;
      const body = [];
      let end = index + 1;
      while (lines[end] !== `${fence[1]}\`\`\``) body.push(lines[end++].slice(indent));
      const before = (lines[index - 1] ?? "").trim();
      const mark = MARK.exec(before);
      assert.ok(mark || !before.startsWith("<!-- skill-example:"), `${file}:${index}: a marker of no known kind: ${before}`);
      const write = mark?.groups.kind ? { kind: mark.groups.kind, file: mark.groups.file } : null;
      found.push({ file, line: index + 1, code: body.join("\n"), skipped: mark?.groups.why ?? null, write });
      index = end;
    }
  }
  return found;
}

test("every Python block of the codeact skill runs in a real kernel, or is written as the file it says", async () => {
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "notes.txt"), "a file for the examples to find\n");
  server = await startServer({
    workspace: project, stateDir: root, env: { XDG_DATA_HOME: path.join(root, "data") },
    args: ["mcp", "--workspace", project],
  });
  for (const [name, params] of [["everything", everythingParams()],
    ["filesystem", { command: "node", args: [FILESYSTEM, project] }]]) {
    const registered = await callTool(server.client, "register_mcp_server", { server_name: name, server_params: params });
    assert.ok(!registered.isError, textOf(registered));
  }
  const all = examples();
  let ran = 0;
  const written = new Set();
  for (const example of all.filter((item) => !item.skipped)) {
    const where = `${example.file}:${example.line}`;
    if (example.write) {
      const target = path.resolve(project, example.write.file);
      assert.ok(!path.isAbsolute(example.write.file) && target.startsWith(project + path.sep),
        `${where}: ${example.write.file} is not a path inside the project`);
      if (example.write.kind === "append") {
        assert.ok(written.has(target), `${where}: appends to ${example.write.file}, which no earlier block wrote`);
        fs.appendFileSync(target, `\n\n${example.code}\n`);
      } else {
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, `${example.code}\n`);
        written.add(target);
      }
      continue;
    }
    const result = await callTool(server.client, "execute_ipython_cell", { code: example.code });
    assert.ok(!result.isError, `${where} failed:\n${example.code}\n---\n${textOf(result)}`);
    ran += 1;
  }
  // saving-actions.md saves files.largest to the user library: its files are there.
  const saved = path.join(root, "data", "ipybox", "gentools", "files", "largest");
  for (const name of ["api.py", "impl.py"]) {
    assert.equal(fs.readFileSync(path.join(saved, name), "utf8"),
      fs.readFileSync(path.join(project, "gentools", "files", "largest", name), "utf8"), `${saved}/${name}`);
  }
  const skipped = all.filter((item) => item.skipped);
  const files = all.filter((item) => item.write).length;
  // Pinned: marking a block (or running one that was marked) changes these.
  assert.deepEqual({ ran, files, skipped: skipped.length }, { ran: 12, files: 4, skipped: 0 },
    skipped.map((item) => `${item.file}:${item.line} (${item.skipped})`).join("\n"));
});
