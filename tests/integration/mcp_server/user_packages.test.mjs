// install_package with scope "user" (issue 24, seam 5): a package installed from project A lands
// in the per-user folder beside the user library and imports in a kernel of project B, plain and
// under --sandbox; the project's own .ipybox/site-packages stays first on the path; a sandboxed
// kernel cannot write the per-user folder even where its settings let it write the folder around
// it (the control). No package index: the packages are wheels built here with zipfile, installed
// by path (plain) or by name from PIP_FIND_LINKS (--sandbox refuses local paths).
// Workspaces live under /var/tmp (the sandbox hides /tmp).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";

import { NODE_MODULES, buildWheel, callTool, runOk, startServer, textOf } from "./support.mjs";

const root = fs.realpathSync(fs.mkdtempSync(path.join("/var/tmp", "ipybox-user-packages-")));
const dataHome = path.join(root, "data");
const userSite = path.join(dataHome, "ipybox", "site-packages");
const wheels = path.join(root, "wheels");
const SRT = path.join(NODE_MODULES, ".bin", "srt");
const servers = [];

async function start(project, { sandboxed = false, config, env = {} } = {}) {
  fs.mkdirSync(project, { recursive: true });
  const args = ["mcp", "--workspace", project];
  if (sandboxed) args.push("--sandbox");
  if (config) args.push("--sandbox-config", config);
  const server = await startServer({
    workspace: project, stateDir: root, args,
    // PIP_NO_INDEX: nothing may come from a package index in a test.
    env: { XDG_DATA_HOME: dataHome, IPYBOX_SRT: SRT, PIP_NO_INDEX: "1", ...env },
  });
  servers.push(server);
  return server.client;
}

const importLine = (name) =>
  `import ${name}, sys\nprint(${name}.VALUE, ${name}.__file__.startswith(${JSON.stringify(userSite + "/")}))`;

after(async () => {
  for (const server of servers) await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

test("plain: installed with scope user in project A, imported in project B; B's own copy wins", async () => {
  const a = await start(path.join(root, "plain-a"));
  const wheel = buildWheel(path.join(root, "plain-wheels"), "ipybox_user_pkg", "1.0", "user");
  const installed = await callTool(a, "install_package", { package_name: wheel, scope: "user" });
  assert.ok(!installed.isError, textOf(installed));
  assert.ok(fs.existsSync(path.join(userSite, "ipybox_user_pkg", "__init__.py")), textOf(installed));
  assert.equal(fs.existsSync(path.join(root, "plain-a", ".ipybox", "site-packages", "ipybox_user_pkg")), false);
  assert.equal(await runOk(a, importLine("ipybox_user_pkg")), "user True");  // at once, without reset

  const b = await start(path.join(root, "plain-b"));
  assert.equal(await runOk(b, importLine("ipybox_user_pkg")), "user True");
  // The project's folder comes first: a version installed for B alone shadows the user's.
  const own = buildWheel(path.join(root, "plain-wheels-2"), "ipybox_user_pkg", "2.0", "project");
  const mine = await callTool(b, "install_package", { package_name: own });
  assert.ok(!mine.isError, textOf(mine));
  const reset = await callTool(b, "reset");
  assert.ok(!reset.isError, textOf(reset));
  assert.equal(await runOk(b, importLine("ipybox_user_pkg")), "project False");
  assert.equal(await runOk(a, importLine("ipybox_user_pkg")), "user True");  // A still has the user's

  const refused = await callTool(a, "install_package", { package_name: wheel, scope: "everyone" });
  assert.equal(refused.isError, true);
  assert.match(textOf(refused), /"scope" must be "project" or "user", not "everyone"/);
});

test("--sandbox: installed with scope user in project A, imported in project B, never written by a kernel", async () => {
  assert.ok(fs.existsSync(SRT), "install the npm test peers: npm install --prefix tests/node");
  buildWheel(wheels, "ipybox_user_sbx", "1.0", "sandboxed");
  const a = await start(path.join(root, "sandboxed-a"), { sandboxed: true, env: { PIP_FIND_LINKS: wheels } });
  const installed = await callTool(a, "install_package", { package_name: "ipybox_user_sbx", scope: "user" });
  assert.ok(!installed.isError, textOf(installed));
  assert.equal(await runOk(a, importLine("ipybox_user_sbx")), "sandboxed True");

  // B's settings let its kernel write a folder beside the user site (a grant of the folder that
  // holds it is refused outright, sandbox.settings_floor): the write there succeeds (the
  // control), the one into the user site is refused.
  const config = path.join(root, "sandbox-b.json");
  fs.mkdirSync(path.join(dataHome, "ipybox-beside"), { recursive: true });
  fs.writeFileSync(config, JSON.stringify({ filesystem: { allowWrite: [path.join(dataHome, "ipybox-beside")] } }));
  const b = await start(path.join(root, "sandboxed-b"), { sandboxed: true, config });
  assert.equal(await runOk(b, importLine("ipybox_user_sbx")), "sandboxed True");
  const beside = path.join(dataHome, "ipybox-beside", "beside.txt");
  const planted = path.join(userSite, "planted_by_kernel.py");
  const written = await runOk(b, [
    "results = []",
    `for target in [${JSON.stringify(beside)}, ${JSON.stringify(planted)}]:`,
    "    try:",
    "        open(target, 'w').write('x = 1\\n')",
    "        results.append('written')",
    "    except OSError as error:",
    "        results.append('refused')",
    "print(*results)",
  ].join("\n"));
  assert.equal(written, "written refused");
  assert.ok(fs.existsSync(beside));
  assert.equal(fs.existsSync(planted), false);
});
