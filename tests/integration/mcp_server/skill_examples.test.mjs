// The codeact skill's examples run (issue 24, seam 8): every ```python block of skills/codeact/
// (SKILL.md, then the references in the order the workflow reads them) runs, in order, as one
// execute_ipython_cell of one `ipybox mcp` whose project has server-everything and
// server-filesystem registered, as the skill tells an agent to register them. A block the skill
// marks with the line `<!-- skill-example: not run (why) -->` right before it is not run; it is
// counted, and the count is pinned so that a new unmarked block is a block that must run.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";

import { FILESYSTEM, REPO, callTool, everythingParams, startServer, textOf } from "./support.mjs";

const SKILL = path.join(REPO, "skills", "codeact");
const ORDER = ["SKILL.md", "references/servers.md", "references/discovery.md",
  "references/code-actions.md", "references/output-parsers.md", "references/saving-actions.md"];
const MARK = /^<!-- skill-example: not run \((.+)\) -->$/;

const root = fs.realpathSync(fs.mkdtempSync(path.join("/var/tmp", "ipybox-skill-examples-")));
const project = path.join(root, "project");
let server;

after(async () => {
  if (server) await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

// [{ file, line, code, skipped: reason or null }] in reading order.
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
      const mark = MARK.exec((lines[index - 1] ?? "").trim());
      found.push({ file, line: index + 1, code: body.join("\n"), skipped: mark ? mark[1] : null });
      index = end;
    }
  }
  return found;
}

test("every Python block of the codeact skill not marked 'not run' runs in a real kernel", async () => {
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
  for (const example of all.filter((item) => !item.skipped)) {
    const result = await callTool(server.client, "execute_ipython_cell", { code: example.code });
    assert.ok(!result.isError, `${example.file}:${example.line} failed:\n${example.code}\n---\n${textOf(result)}`);
    ran += 1;
  }
  const skipped = all.filter((item) => item.skipped);
  // Pinned: marking another block 'not run' (or running one that was not) changes these.
  assert.deepEqual({ ran, skipped: skipped.length }, { ran: 4, skipped: 8 },
    skipped.map((item) => `${item.file}:${item.line} (${item.skipped})`).join("\n"));
});
