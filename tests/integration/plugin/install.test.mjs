// Installing the plugins with the real Claude Code CLI, as users do, and what `claude mcp list`
// then reports for each server. Needs IPYBOX_BIN (ctest sets it to the built binary).
//
//   IPYBOX_BIN=build/native/cli/ipybox node tests/integration/plugin/install.test.mjs
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import test from "node:test";

import {
  PLUGINS, ROOT, SKILL_PLUGIN, filesUnder, installedPlugins, ipyboxBinary, makeSandbox, mcpLogs,
  projectVersion, publishMarketplaceChange, runClaude, serveMarketplaceOverGit,
} from "../../node/plugin_support.mjs";

function addAndInstallAll(sandbox, source) {
  const added = runClaude(sandbox, ["plugin", "marketplace", "add", source]);
  assert.equal(added.status, 0, added.description);
  assert.match(added.output, /Successfully added marketplace: ipybox/, added.description);
  for (const [index, name] of PLUGINS.entries()) {
    const installed = runClaude(sandbox, ["plugin", "install", `${name}@ipybox`]);
    assert.equal(installed.status, 0, installed.description);
    assert.match(installed.output, new RegExp(`Successfully installed plugin: ${name}@ipybox`), installed.description);
    if (index === 0) assert.match(installed.output, new RegExp(`\\+ 1 dependency: ${SKILL_PLUGIN}`), installed.description);
  }
  const byId = Object.fromEntries(installedPlugins(sandbox).map((plugin) => [plugin.id, plugin]));
  for (const name of [...PLUGINS, SKILL_PLUGIN]) {
    const plugin = byId[`${name}@ipybox`];
    assert.ok(plugin, `${name}@ipybox is not installed: ${JSON.stringify(Object.keys(byId))}`);
    assert.equal(plugin.enabled, true, name);
    assert.equal(plugin.version, projectVersion(), name);
  }
  return byId;
}

test("from a local clone (claude plugin marketplace add <repo>): all plugins install, with the skill", (t) => {
  const sandbox = makeSandbox(t, "install-dir");
  addAndInstallAll(sandbox, ROOT);
});

for (const name of PLUGINS) {
  test(`${name} alone brings the codeact skill with it`, (t) => {
    const sandbox = makeSandbox(t, `alone-${name}`);
    assert.equal(runClaude(sandbox, ["plugin", "marketplace", "add", ROOT]).status, 0);
    const installed = runClaude(sandbox, ["plugin", "install", `${name}@ipybox`]);
    assert.equal(installed.status, 0, installed.description);
    assert.match(installed.output, new RegExp(`\\+ 1 dependency: ${SKILL_PLUGIN}`), installed.description);
    const ids = installedPlugins(sandbox).map((plugin) => plugin.id).sort();
    assert.deepEqual(ids, [`${name}@ipybox`, `${SKILL_PLUGIN}@ipybox`].sort());
  });
}

test("from a git URL: installed copies hold everything the servers and the skill need", (t) => {
  const sandbox = makeSandbox(t, "install-git");
  const byId = addAndInstallAll(sandbox, serveMarketplaceOverGit(sandbox));
  for (const name of PLUGINS) {
    const copy = byId[`${name}@ipybox`].installPath;
    assert.ok(copy.startsWith(path.join(sandbox.home, ".claude", "plugins", "cache")), copy);
    assert.deepEqual(filesUnder(copy).filter((file) => file !== ".in_use"),
      filesUnder(path.join(ROOT, "plugins", name)), `${name}: the cache copy differs from the source`);
    assert.ok(fs.statSync(path.join(copy, "bin", "ipybox-mcp")).mode & 0o111, `${name}: launcher lost its x bit`);
  }
  // The skill is installed once, as its own plugin, byte for byte the source skill.
  const skillCopy = byId[`${SKILL_PLUGIN}@ipybox`].installPath;
  const source = path.join(ROOT, "skills");
  const shipped = filesUnder(source);
  assert.deepEqual(filesUnder(skillCopy).filter((file) => file !== ".in_use"), shipped);
  assert.ok(shipped.includes("codeact/SKILL.md") && shipped.some((file) => file.startsWith("codeact/references/")));
  for (const file of shipped) {
    assert.ok(fs.readFileSync(path.join(skillCopy, file)).equals(fs.readFileSync(path.join(source, file))), file);
  }
});

test("claude mcp list: codeact-default and codeact-sandbox connect from the installed copies; docker fails closed, saying why", (t) => {
  const sandbox = makeSandbox(t, "mcp-list");
  addAndInstallAll(sandbox, serveMarketplaceOverGit(sandbox));
  const srt = path.join(ROOT, "tests", "node", "node_modules", ".bin", "srt");
  assert.ok(fs.existsSync(srt), "install the npm test peers: npm install --prefix tests/node");
  const list = (extra) => runClaude(sandbox, ["mcp", "list"], {
    env: { IPYBOX_BIN: ipyboxBinary(), IPYBOX_DOCKER_IMAGE: "ipybox-test-no-such-image:0", ...extra },
  });
  const listed = list({ IPYBOX_SRT: srt });
  assert.equal(listed.status, 0, listed.description);
  const line = (output, name) =>
    output.stdout.split("\n").find((text) => text.startsWith(`plugin:${name}:ipybox:`)) ?? "";
  const cache = path.join(sandbox.home, ".claude", "plugins", "cache", "ipybox");
  assert.match(line(listed, "codeact-default"), /✔ Connected/, listed.description);
  assert.ok(line(listed, "codeact-default").includes(path.join(cache, "codeact-default")), "the server must run from the cache copy");
  assert.match(line(listed, "codeact-sandbox"), /✔ Connected/, listed.description);

  assert.match(line(listed, "codeact-docker"), /Failed/, listed.description);
  assert.match(mcpLogs(sandbox, "plugin-codeact-docker-ipybox"),
    /image ipybox-test-no-such-image:0 does not exist|docker was not found|cannot use Docker/);

  // Without the sandbox runtime, `ipybox mcp --sandbox` refuses to start (fails closed).
  const withoutSrt = list({ IPYBOX_SRT: path.join(sandbox.dir, "no-srt-here") });
  assert.match(line(withoutSrt, "codeact-sandbox"), /Failed/, withoutSrt.description);
  assert.match(mcpLogs(sandbox, "plugin-codeact-sandbox-ipybox"), /refusing to run the kernel unsandboxed/);
});

test("claude mcp list without the native binary: failed, and the log says how to install it", (t) => {
  const sandbox = makeSandbox(t, "no-binary");
  addAndInstallAll(sandbox, serveMarketplaceOverGit(sandbox));
  const listed = runClaude(sandbox, ["mcp", "list"], { env: { IPYBOX_BIN: path.join(sandbox.dir, "no-ipybox-here") } });
  const line = listed.stdout.split("\n").find((text) => text.startsWith("plugin:codeact-default:ipybox:")) ?? "";
  assert.match(line, /Failed/, listed.description);
  const log = mcpLogs(sandbox, "plugin-codeact-default-ipybox");
  assert.match(log, /IPYBOX_BIN is set to/);
  assert.match(log, /clone the ipybox repository, then run \.\/install\.sh/);
});

test("upgrading as the README says: marketplace update, then update the plugin and the skill", (t) => {
  const sandbox = makeSandbox(t, "upgrade");
  addAndInstallAll(sandbox, serveMarketplaceOverGit(sandbox));
  const next = "99.0.0";
  publishMarketplaceChange(sandbox, (dir) => {
    for (const file of [".claude-plugin/marketplace.json", ...PLUGINS.map((name) => `plugins/${name}/.claude-plugin/plugin.json`)]) {
      const text = fs.readFileSync(path.join(dir, file), "utf8");
      fs.writeFileSync(path.join(dir, file), text.replaceAll(`"version": "${projectVersion()}"`, `"version": "${next}"`));
    }
    fs.appendFileSync(path.join(dir, "skills/codeact/SKILL.md"), "\nA line added by the release.\n");
  });
  for (const args of [["plugin", "marketplace", "update", "ipybox"],
    ...[...PLUGINS, SKILL_PLUGIN].map((name) => ["plugin", "update", `${name}@ipybox`])]) {
    const result = runClaude(sandbox, args);
    assert.equal(result.status, 0, result.description);
  }
  const byId = Object.fromEntries(installedPlugins(sandbox).map((plugin) => [plugin.id, plugin]));
  for (const name of [...PLUGINS, SKILL_PLUGIN]) assert.equal(byId[`${name}@ipybox`].version, next, name);
  const skill = fs.readFileSync(path.join(byId[`${SKILL_PLUGIN}@ipybox`].installPath, "codeact", "SKILL.md"), "utf8");
  assert.match(skill, /A line added by the release/);
});
