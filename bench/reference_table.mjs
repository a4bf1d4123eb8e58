// The Markdown table of bench/reference_bench.mjs: ratios (ours/reference) first, then both
// servers' figures. A cell says "failed" when the step failed on that server, "n/a" when the
// server has no equivalent of the step (a null figure) and "missing" when it was never measured;
// the ratio is "—" unless both figures are numbers.

const pick = (key, field) => (figures) => {
  const value = figures[key];
  if (value === null || value === undefined || value.error) return value;
  return field ? value[field] : value;
};

export const ROWS = [
  ["spawn to `initialize` reply (ms)", pick("spawn_to_initialize_ms")],
  ["spawn to the first `execute_ipython_cell(\"pass\")` result (ms)", pick("spawn_to_first_result_ms")],
  ["`pass` round trip p50 (ms)", pick("pass", "p50_ms")],
  ["`pass` round trip p99 (ms)", pick("pass", "p99_ms")],
  ["`register_mcp_server`: server-everything over stdio (ms)", pick("register_ms")],
  ["tool call as a cell, `echo.run(echo.Params(message='x'))`, p50 (ms)", pick("tool_call_cell", "p50_ms")],
  ["tool call as a cell, p99 (ms)", pick("tool_call_cell", "p99_ms")],
  ["the same call timed inside the kernel, p50 (ms)", pick("tool_call_in_kernel", "p50_ms")],
  ["reset + `pass`, spare given 2.5 s, median (ms)", pick("reset_single", "p50_ms")],
  ["resets back to back (reset + `pass`, 12 in a row), p50 (ms)", pick("reset_back_to_back", "p50_ms")],
  ["resets back to back, p90 (ms)", pick("reset_back_to_back", "p90_ms")],
  ["process tree RSS, idle (MiB)", pick("tree_idle", "rss_mib")],
  ["process tree PSS, idle (MiB)", pick("tree_idle", "pss_mib")],
  ["process tree RSS, echo's server up (MiB)", pick("tree_with_tools", "rss_mib")],
  ["process tree PSS, echo's server up (MiB)", pick("tree_with_tools", "pss_mib")],
];

function cell(value) {
  if (value === null) return "n/a";
  if (value === undefined) return "missing";
  if (value.error) return "failed";
  return value >= 100 ? value.toFixed(0) : value.toFixed(2);
}

function ratio(ours, reference) {
  if (typeof ours !== "number" || typeof reference !== "number" || reference === 0) return "—";
  const value = ours / reference;
  return value >= 0.1 ? value.toFixed(2) : value.toPrecision(2);
}

// "python3 ×3, node" for a tree's process names.
function processList(memory) {
  if (!memory?.processes) return "?";
  const counts = new Map();
  for (const name of memory.processes) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, count]) => (count > 1 ? `${name} ×${count}` : name)).join(", ");
}

export function renderTable(report) {
  const { ours, reference } = report;
  const lines = [
    `ipybox (C++, ${ours.binary}) next to ipybox ${reference.versions.ipybox} (Python ${reference.versions.python}, `
      + `mcp ${reference.versions.mcp}, ipykernel ${reference.versions.ipykernel}, kernel gateway `
      + `${reference.versions.jupyter_kernel_gateway}), same Node SDK client, rounds interleaved; `
      + `${report.runs} round trips, ${report.spawns} spawn${report.spawns === 1 ? "" : "s"}`
      + `${report.quick ? " (quick mode)" : ""}; `
      + `${report.date.slice(0, 10)}, ${report.cores} cores (${report.cpu}), load average `
      + `${report.load_average?.toFixed(1) ?? "?"} at the start:`,
    "",
    `| measure | ratio ours/reference | ipybox (C++) | ipybox ${reference.versions.ipybox} (Python) |`,
    "|---|---:|---:|---:|",
  ];
  for (const [name, get] of ROWS) {
    const a = get(ours);
    const b = get(reference);
    lines.push(`| ${name} | ${ratio(a, b)} | ${cell(a)} | ${cell(b)} |`);
  }
  lines.push("", `Process trees with echo's server up: ours ${processList(ours.tree_with_tools)}; `
                  + `reference ${processList(reference.tree_with_tools)}.`, "");
  return lines.join("\n");
}
