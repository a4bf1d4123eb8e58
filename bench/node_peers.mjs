// Loads the npm packages the benchmarks use from tests/node/node_modules (bench/ is outside that
// package, so bare specifiers would not resolve). Install them with: npm install --prefix tests/node
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const NODE_MODULES = path.join(REPO, "tests", "node", "node_modules");
export const EVERYTHING = path.join(NODE_MODULES, "@modelcontextprotocol", "server-everything", "dist", "index.js");

// The ESM entry point `subpath` ("./client/stdio.js") of package `name`, imported.
export async function importPeer(name, subpath) {
  const root = path.join(NODE_MODULES, name);
  const manifest = path.join(root, "package.json");
  if (!fs.existsSync(manifest)) {
    throw new Error(`${name} is not installed in ${NODE_MODULES}: run npm install --prefix tests/node`);
  }
  const exports = JSON.parse(fs.readFileSync(manifest, "utf8")).exports;
  let target = exports[subpath]?.import;
  if (!target && exports["./*"]) target = exports["./*"].import.replace("*", subpath.slice(2));
  if (!target) throw new Error(`${name} does not export ${subpath}`);
  return import(pathToFileURL(path.join(root, target)).href);
}

// The same percentile as bench/jupyter_client_bench.py and kernel_bench.cpp (nearest rank below).
export function percentile(values, p) {
  if (values.length === 0) return 0;
  const ordered = [...values].sort((a, b) => a - b);
  return ordered[Math.floor((p / 100) * (ordered.length - 1))];
}

export function summary(samples) {
  return { p50_ms: percentile(samples, 50), p99_ms: percentile(samples, 99), runs: samples.length };
}

// `--name value` pairs from argv, with defaults.
export function options(defaults) {
  const result = { ...defaults };
  const argv = process.argv.slice(2);
  for (let i = 0; i + 1 < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "");
    if (!(key in defaults)) throw new Error(`unknown option ${argv[i]}; known: ${Object.keys(defaults).join(", ")}`);
    result[key] = typeof defaults[key] === "number" ? Number(argv[i + 1]) : argv[i + 1];
  }
  return result;
}

// A cell that calls server-everything's echo `runs` times through the generated API (after 20
// warm-up calls), each timed in the kernel with perf_counter, and prints {p50_ms, p99_ms, runs}.
export function echoTimingCell(runs) {
  return [
    "import json, time",
    "from mcptools.everything import echo",
    "for _ in range(20):",
    "    echo.run(echo.Params(message='x'))",
    "samples = []",
    `for _ in range(${runs}):`,
    "    start = time.perf_counter()",
    "    echo.run(echo.Params(message='x'))",
    "    samples.append((time.perf_counter() - start) * 1000)",
    "samples.sort()",
    "print(json.dumps({'p50_ms': samples[int(0.5 * (len(samples) - 1))],",
    "                  'p99_ms': samples[int(0.99 * (len(samples) - 1))], 'runs': len(samples)}))",
  ].join("\n");
}
