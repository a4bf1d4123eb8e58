// codeact-default installed from a local copy of the marketplace on a machine whose only way to
// ipybox is uv: its launcher runs `uvx --from ipybox-native==<version> ipybox mcp`, which installs
// the wheel from the index uv is set up for (UV_INDEX_URL, a local index: wheel.test.sh runs this
// in its clean environment), and `claude mcp list` shows the server Connected.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import test from "node:test";

import { ROOT, makeSandbox, mcpLogs, runClaude } from "../../node/plugin_support.mjs";

const SERVER = "plugin:codeact-default:ipybox:";

test("claude plugin install codeact-default, then claude mcp list: Connected through uvx", (t) => {
  const sandbox = makeSandbox(t, "wheel-plugin");
  for (const name of Object.keys(process.env).filter((key) => key.startsWith("UV_"))) {
    sandbox.env[name] = process.env[name];
  }
  const marketplace = path.join(sandbox.dir, "marketplace");
  for (const entry of [".claude-plugin", "plugins", "skills"]) {
    fs.cpSync(path.join(ROOT, entry), path.join(marketplace, entry), { recursive: true });
  }
  const added = runClaude(sandbox, ["plugin", "marketplace", "add", marketplace]);
  assert.equal(added.status, 0, added.description);
  const started = Date.now();
  const installed = runClaude(sandbox, ["plugin", "install", "codeact-default@ipybox"]);
  assert.equal(installed.status, 0, installed.description);
  const listed = runClaude(sandbox, ["mcp", "list"], { timeout: 180_000 });
  const line = listed.stdout.split("\n").find((text) => text.startsWith(SERVER)) ?? "";
  const log = mcpLogs(sandbox, "plugin-codeact-default-ipybox");
  assert.match(line, /✔ Connected/, `${listed.description}\nlog:\n${log}`);
  assert.match(log, /starting ipybox-native==[0-9.]+ through/, `the launcher took another route:\n${log}`);
  console.log(`# claude plugin install -> Connected through uvx (cold uv cache): ${((Date.now() - started) / 1000).toFixed(1)} s`);
});
