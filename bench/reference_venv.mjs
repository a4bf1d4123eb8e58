// The reference, ipybox 0.9.2 (gradion-ai's Python project) from PyPI, in a virtual environment
// kept between runs under .cache/. `mcp<2` is installed after it: 0.9.2 uses FastMCP from mcp 1.x.
// Needs PyPI (or the index pip is configured with); without it, it exits with a message.
// Run alone (node bench/reference_venv.mjs), it installs and prints the server's path: bench/run
// --reference does so first, so that a missing PyPI stops it before the long part.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { REPO } from "./node_peers.mjs";

export const REFERENCE_VERSION = "0.9.2";
const REQUIREMENTS = [[`ipybox==${REFERENCE_VERSION}`], ["mcp<2"]];
const SYSTEM_PYTHON = "/usr/bin/python3";  // Debian's, with python3-venv; not a pyenv shim

function run(command, args) {
  const result = spawnSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (result.error) throw result.error;
  return result;
}

function fail(message, output = "") {
  const tail = output.trim().split("\n").slice(-8).join("\n");
  process.stderr.write(`bench: ${message}${tail ? `\n${tail}` : ""}\n`);
  process.exit(3);
}

// The versions the reference runs with, as the venv reports them.
function installedVersions(python) {
  const script = "import importlib.metadata as m, json, platform; print(json.dumps({"
    + "'ipybox': m.version('ipybox'), 'mcp': m.version('mcp'), 'ipykernel': m.version('ipykernel'), "
    + "'jupyter_kernel_gateway': m.version('jupyter-kernel-gateway'), 'python': platform.python_version()}))";
  const result = run(python, ["-c", script]);
  return result.status === 0 ? JSON.parse(result.stdout) : null;
}

// Installs the reference into `dir` unless a finished install is there; returns the paths of its
// `ipybox` console script (the MCP server) and its versions.
export function ensureReferenceVenv(dir = path.join(REPO, ".cache", `reference-ipybox-${REFERENCE_VERSION}`)) {
  const python = path.join(dir, "bin", "python");
  const done = path.join(dir, "installed.json");  // written last: a broken install is redone
  if (fs.existsSync(done)) {
    const versions = installedVersions(python);
    if (versions?.ipybox === REFERENCE_VERSION) return { ipybox: path.join(dir, "bin", "ipybox"), versions };
  }
  process.stderr.write(`bench: installing ipybox ${REFERENCE_VERSION} and mcp<2 from PyPI into ${dir}...\n`);
  fs.rmSync(dir, { recursive: true, force: true });
  const venv = run(SYSTEM_PYTHON, ["-m", "venv", dir]);
  if (venv.status !== 0) fail(`${SYSTEM_PYTHON} -m venv failed (is python3-venv installed?)`, venv.stderr);
  for (const requirement of REQUIREMENTS) {
    // Short timeouts: an unreachable index should fail in seconds, not after pip's retries.
    const pip = run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                             "--timeout", "20", "--retries", "1", ...requirement]);
    if (pip.status !== 0) {
      fs.rmSync(dir, { recursive: true, force: true });
      fail(`could not install ${requirement.join(" ")} from PyPI; the reference benchmark needs PyPI `
           + "(or a pip index that has it). pip said:", pip.stderr || pip.stdout);
    }
  }
  const versions = installedVersions(python);
  if (versions?.ipybox !== REFERENCE_VERSION) fail(`the venv in ${dir} does not report ipybox ${REFERENCE_VERSION}`);
  fs.writeFileSync(done, JSON.stringify(versions) + "\n");
  return { ipybox: path.join(dir, "bin", "ipybox"), versions };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.stdout.write(`${ensureReferenceVenv().ipybox}\n`);
}
