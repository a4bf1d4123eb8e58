// The marketplace bundle as files: manifests, launchers, versions, the skill's front matter,
// and `claude plugin validate --strict` on the marketplace, every plugin and the skill.
//
//   node tests/integration/plugin/bundle.test.mjs
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import test from "node:test";

import { PLUGINS, ROOT, SKILL_PLUGIN, makeSandbox, projectVersion, runClaude } from "../../node/plugin_support.mjs";

const readJson = (file) => JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8"));
const marketplace = readJson(".claude-plugin/marketplace.json");
const SKILL_DIR = path.join(ROOT, "skills", "codeact");
const TOOLS = ["execute_ipython_cell", "register_mcp_server", "install_package", "reset", "search_tools"];

test("the marketplace is named ipybox and lists the three plugins and the shared skill", () => {
  assert.equal(marketplace.name, "ipybox");
  assert.deepEqual(marketplace.plugins.map((entry) => entry.name), [...PLUGINS, SKILL_PLUGIN]);
  for (const name of PLUGINS) {
    const entry = marketplace.plugins.find((candidate) => candidate.name === name);
    assert.equal(entry.source, `./plugins/${name}`);
    assert.notEqual(entry.strict, false, `${name} must ship its own plugin.json (strict)`);
  }
  const skill = marketplace.plugins.find((entry) => entry.name === SKILL_PLUGIN);
  assert.deepEqual([skill.source, skill.strict, skill.skills], ["./skills", false, ["./codeact"]]);
});

test("every version agrees with the project version (plugins/sync-version.py --check)", () => {
  execFileSync("python3", [path.join(ROOT, "plugins", "sync-version.py"), "--check"], { stdio: "pipe" });
  const version = projectVersion();
  assert.equal(marketplace.metadata.version, version);
  for (const entry of marketplace.plugins) assert.equal(entry.version, version, entry.name);
  for (const name of PLUGINS) assert.equal(readJson(`plugins/${name}/.claude-plugin/plugin.json`).version, version, name);
});

for (const name of PLUGINS) {
  test(`${name}: manifest, ipybox server via its own launcher, the skill as a dependency`, () => {
    const manifest = readJson(`plugins/${name}/.claude-plugin/plugin.json`);
    assert.equal(manifest.name, name);
    assert.deepEqual(manifest.dependencies, [SKILL_PLUGIN]);
    const servers = readJson(`plugins/${name}/.mcp.json`).mcpServers;
    assert.deepEqual(Object.keys(servers), ["ipybox"]);
    assert.equal(servers.ipybox.command, "${CLAUDE_PLUGIN_ROOT}/bin/ipybox-mcp");
    assert.deepEqual(servers.ipybox.args, name === "codeact-sandbox" ? ["--sandbox"] : []);
    assert.ok(!JSON.stringify(servers).includes(".."), "the server must not reach outside the plugin");
    const launcher = path.join(ROOT, "plugins", name, "bin", "ipybox-mcp");
    assert.ok(fs.statSync(launcher).mode & 0o111, `${launcher} must be executable`);
  });
}

test("the skill's front matter follows Claude Code and the Agent Skills spec", () => {
  const text = fs.readFileSync(path.join(SKILL_DIR, "SKILL.md"), "utf8");
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  assert.ok(match, "SKILL.md must start with a --- front matter block");
  const fields = Object.fromEntries(match[1].split("\n").map((line) => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
  }));
  assert.deepEqual(Object.keys(fields).sort(), ["description", "name"]);
  assert.equal(fields.name, path.basename(SKILL_DIR), "name must equal the directory name");
  assert.match(fields.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
  assert.ok(fields.name.length <= 64);
  assert.ok(fields.description.length > 0 && fields.description.length <= 1024, `description has ${fields.description.length} chars`);
  assert.ok(!/[<>]/.test(fields.description.replace(/mcptools\.<server>/g, "")), "no markup in the description");
  assert.ok(text.split("\n").length <= 120, "keep SKILL.md short; details go to references/");
});

test("the skill links every reference file, and every link resolves", () => {
  const text = fs.readFileSync(path.join(SKILL_DIR, "SKILL.md"), "utf8");
  const linked = new Set([...text.matchAll(/\]\((references\/[^)]+)\)/g)].map((m) => m[1]));
  const present = new Set(fs.readdirSync(path.join(SKILL_DIR, "references")).map((file) => `references/${file}`));
  assert.deepEqual([...linked].sort(), [...present].sort());
});

test("the skill names the server's tools as Claude Code shows them", () => {
  const text = fs.readFileSync(path.join(SKILL_DIR, "SKILL.md"), "utf8");
  for (const tool of TOOLS) assert.ok(text.includes(`mcp__plugin_<plugin>_ipybox__${tool}`), tool);
  for (const name of PLUGINS) assert.ok(text.includes(name), name);
});

test("claude plugin validate --strict passes for the marketplace, each plugin and the skill", (t) => {
  const sandbox = makeSandbox(t, "validate");
  const targets = [ROOT, ...PLUGINS.map((name) => path.join(ROOT, "plugins", name))];
  // The skill plugin has no manifest (strict: false); validate its skills tree as components.
  const components = path.join(sandbox.dir, "codeact-skill");
  fs.cpSync(path.join(ROOT, "skills"), path.join(components, "skills"), { recursive: true });
  targets.push(components);
  for (const target of targets) {
    const result = runClaude(sandbox, ["plugin", "validate", "--strict", target]);
    assert.equal(result.status, 0, result.description);
    assert.match(result.output, /Validation passed/, result.description);
  }
});
