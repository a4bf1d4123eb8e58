// Times `ipybox generate` against bench/synthetic_mcp_server.mjs with 500 tools, and with 1 tool
// for the fixed cost (spawning node, the server's start-up, initialize). Prints one JSON object.
//
//   node bench/codegen_bench.mjs --ipybox PATH [--tools 500] [--repeats 5]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";

import { REPO, options, percentile } from "./node_peers.mjs";

const opts = options({ ipybox: path.join(REPO, "build", "native", "cli", "ipybox"), tools: 500, repeats: 5 });
const server = path.join(REPO, "bench", "synthetic_mcp_server.mjs");
const root = fs.mkdtempSync(path.join(os.tmpdir(), "ipybox-codegen-bench-"));

function generate(toolCount) {
  const samples = [];
  for (let i = 0; i < opts.repeats; ++i) {
    const rootDir = path.join(root, `run-${toolCount}-${i}`);
    const params = JSON.stringify({ command: process.execPath, args: [server, String(toolCount)] });
    const start = performance.now();
    const run = spawnSync(opts.ipybox, ["generate", "--server-name", "synthetic", "--server-params", params,
                                        "--root-dir", rootDir], { encoding: "utf8" });
    samples.push(performance.now() - start);
    if (run.status !== 0) throw new Error(`ipybox generate failed (${run.status}): ${run.stderr}`);
    const modules = fs.readdirSync(path.join(rootDir, "synthetic"))
      .filter((f) => f.endsWith(".py") && f !== "__init__.py");  // registration.json sits beside them
    if (modules.length !== toolCount) throw new Error(`expected ${toolCount} modules, got ${modules.length}`);
  }
  return percentile(samples, 50);
}

try {
  const many = generate(opts.tools);
  const one = generate(1);
  process.stdout.write(JSON.stringify({
    tools: opts.tools,
    generate_ms: many,
    generate_one_tool_ms: one,
    codegen_share_ms: many - one,
    repeats: opts.repeats,
  }) + "\n");
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
