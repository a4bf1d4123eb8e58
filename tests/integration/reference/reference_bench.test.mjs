// bench/reference_bench.mjs in its quick mode, once: ipybox and the reference (ipybox 0.9.2 from
// PyPI) both answer every step of the workload, and the table prints every ratio. The figures
// themselves are never judged: they depend on the machine. A missing binary, node peer or PyPI
// fails the test, it never skips.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import { ROWS, renderTable } from "../../../bench/reference_table.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ipybox = path.resolve(process.env.IPYBOX_BIN || path.join(repo, "build", "native", "cli", "ipybox"));
assert.ok(fs.existsSync(ipybox), `the ipybox binary is missing at ${ipybox}: build it and set IPYBOX_BIN`);
const root = fs.mkdtempSync(path.join(os.tmpdir(), "ipybox-reference-test-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const NUMBER = /^\d+(\.\d+)?(e-?\d+)?$/;

// What is wrong with the shape of a table from bench/reference_table.mjs: one row per measure,
// each with a ratio and both servers' figures as numbers.
function tableProblems(markdown) {
  const rows = markdown.split("\n").filter((line) => line.startsWith("| ")).slice(1);  // no header
  const problems = [];
  for (const [name] of ROWS) {
    const found = rows.filter((row) => row.startsWith(`| ${name} |`));
    if (found.length !== 1) {
      problems.push(`${found.length} rows for "${name}"`);
      continue;
    }
    const cells = found[0].split(" | ").slice(1).map((text) => text.replace(/ \|$/, ""));
    const [ratio, ours, reference] = cells;
    if (!NUMBER.test(ratio)) problems.push(`"${name}": no ratio (${ratio})`);
    if (!NUMBER.test(ours)) problems.push(`"${name}": ipybox gave ${ours}`);
    if (!NUMBER.test(reference)) problems.push(`"${name}": the reference gave ${reference}`);
  }
  if (rows.length !== ROWS.length) problems.push(`${rows.length} rows, expected ${ROWS.length}`);
  return problems;
}

test("control: the shape check refuses a step that failed on one server or was never measured", () => {
  const figures = { spawn_to_initialize_ms: 5, spawn_to_first_result_ms: 6, register_ms: 7,
                    pass: { p50_ms: 1, p99_ms: 2 }, tool_call_cell: { p50_ms: 1, p99_ms: 2 },
                    tool_call_in_kernel: { p50_ms: 1 }, reset_single: { p50_ms: 3 },
                    reset_back_to_back: { p50_ms: 4, p90_ms: 5 },
                    tree_idle: { rss_mib: 100, pss_mib: 90 }, tree_with_tools: { rss_mib: 200, pss_mib: 150 } };
  const report = (reference) => ({
    date: "2026-01-01T00:00:00Z", quick: true, runs: 20, spawns: 1, cores: 2, cpu: "test",
    ours: { binary: "ipybox", ...figures },
    reference: { versions: { ipybox: "0.9.2", python: "3", mcp: "1", ipykernel: "7", jupyter_kernel_gateway: "3" },
                 ...reference },
  });
  assert.deepEqual(tableProblems(renderTable(report(figures))), []);
  const failed = tableProblems(renderTable(report({ ...figures, reset_single: { error: "Kernel disconnected" } })));
  assert.deepEqual(failed, ['"reset + `pass`, spare given 2.5 s, median (ms)": no ratio (—)',
                            '"reset + `pass`, spare given 2.5 s, median (ms)": the reference gave failed']);
  const { register_ms: _, ...unmeasured } = figures;
  assert.equal(tableProblems(renderTable(report(unmeasured))).length, 2);
});

test("both servers answer every step of the quick workload, and every ratio is printed", () => {
  const json = path.join(root, "reference.json");
  const run = spawnSync(process.execPath, [path.join(repo, "bench", "reference_bench.mjs"), "--ipybox", ipybox,
                                           "--quick", "--json", json],
                        { encoding: "utf8", timeout: 1_100_000 });
  assert.equal(run.error, undefined, String(run.error));
  assert.equal(run.status, 0, `the bench exited with ${run.status}:\n${run.stdout}\n${run.stderr}`);
  assert.deepEqual(tableProblems(run.stdout), [], run.stdout);
  const report = JSON.parse(fs.readFileSync(json, "utf8"));
  assert.equal(report.reference.versions.ipybox, "0.9.2");
  assert.ok(report.reference.tree_with_tools.processes.includes("index.js"), "server-everything ran under the reference");
  assert.ok(report.ours.tree_with_tools.processes.includes("index.js"), "server-everything ran under ipybox");
});
