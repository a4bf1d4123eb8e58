// Nothing meant for the kernel configures a host process (issue: a sandbox that holds across
// faults, deliverable 3). The sandbox runtime (srt, a Node process), bubblewrap and socat run on
// the host, outside the sandbox: variables given for the kernel (KERNEL_ENV_* for `ipybox mcp`,
// --env for `ipybox run`) must reach the kernel and nothing else. Each variable runs a marker when a
// host process reads it; the control shows each marker works when given to the program directly.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import { NODE_MODULES, removeDir, runOk, startServer } from "./support.mjs";

const SRT = path.join(NODE_MODULES, ".bin", "srt");
const root = fs.realpathSync(fs.mkdtempSync(path.join("/var/tmp", "ipybox-env-")));
const workspace = path.join(root, "workspace");
const ran = (name) => path.join(root, `ran-${name}`);

// One marker per variable; each appends to ran-<name> under root, which a sandboxed kernel
// cannot write (only its workspace is writable), so a marker file means a host process ran it.
function plantMarkers() {
  fs.writeFileSync(path.join(root, "marker.cjs"),
    `require("fs").appendFileSync(${JSON.stringify(ran("node"))}, process.argv.join(" ") + "\\n");\n`);
  fs.writeFileSync(path.join(root, "marker.sh"), `echo "$0" >> ${JSON.stringify(ran("bash"))}\n`);
  fs.mkdirSync(path.join(root, "python"));
  fs.writeFileSync(path.join(root, "python", "sitecustomize.py"),
    `import sys\nopen(${JSON.stringify(ran("python"))}, "a").write(sys.executable + "\\n")\n`);
  fs.writeFileSync(path.join(root, "marker.c"), [
    "#include <fcntl.h>",
    "#include <unistd.h>",
    "__attribute__((constructor)) static void marker(void) {",
    `    int fd = open(${JSON.stringify(ran("preload"))}, O_WRONLY | O_CREAT | O_APPEND, 0644);`,
    "    if (fd >= 0) { write(fd, \"x\\n\", 2); close(fd); }",
    "}",
  ].join("\n"));
  execFileSync("cc", ["-shared", "-fPIC", "-o", path.join(root, "marker.so"), path.join(root, "marker.c")]);
}

const VARIABLES = () => ({
  NODE_OPTIONS: `--require=${path.join(root, "marker.cjs")}`,
  BASH_ENV: path.join(root, "marker.sh"),
  PYTHONPATH: path.join(root, "python"),
  LD_PRELOAD: path.join(root, "marker.so"),
});
// A value a shell would mangle if it were not quoted exactly.
const AWKWARD = "it's \"quoted\"\n$HOME `id` \\ back\tslash é";

const servers = [];
let boxed;

before(async () => {
  assert.ok(fs.existsSync(SRT), "install the npm test peers: npm install --prefix tests/node");
  fs.mkdirSync(workspace);
  plantMarkers();
  // `ipybox mcp` takes the kernel's variables as KERNEL_ENV_<NAME> (prefix stripped).
  const env = { IPYBOX_SRT: SRT, KERNEL_ENV_NODE_PATH: path.join(root, "node_path"), KERNEL_ENV_AWKWARD: AWKWARD };
  for (const [name, value] of Object.entries(VARIABLES())) env[`KERNEL_ENV_${name}`] = value;
  boxed = await startServer({
    workspace, stateDir: path.join(root, "state"), args: ["mcp", "--workspace", workspace, "--sandbox"], env,
  });
  servers.push(boxed);
});

after(async () => {
  for (const server of servers) await server.close();
  removeDir(root);
});

test("each marker works when its variable is given to the program directly (the control)", () => {
  const env = { ...process.env, ...VARIABLES() };
  execFileSync("node", ["-e", "0"], { env: { ...process.env, NODE_OPTIONS: env.NODE_OPTIONS } });
  execFileSync("bash", ["-c", "true"], { env: { ...process.env, BASH_ENV: env.BASH_ENV } });
  execFileSync("/usr/bin/python3", ["-c", "pass"], { env: { ...process.env, PYTHONPATH: env.PYTHONPATH } });
  execFileSync("/bin/true", [], { env: { ...process.env, LD_PRELOAD: env.LD_PRELOAD } });
  for (const name of ["node", "bash", "python", "preload"]) {
    assert.ok(fs.existsSync(ran(name)), `control: the ${name} marker did not run`);
    fs.rmSync(ran(name));
  }
});

test("the sandboxed kernel gets its variables exactly, and no host process runs a marker", async () => {
  const seen = JSON.parse(await runOk(boxed.client,
    "import json, os\nprint(json.dumps({k: os.environ.get(k) for k in " +
    "['NODE_OPTIONS', 'BASH_ENV', 'PYTHONPATH', 'LD_PRELOAD', 'AWKWARD', 'NODE_PATH']}))"));
  const expected = VARIABLES();
  assert.equal(seen.NODE_OPTIONS, expected.NODE_OPTIONS);
  assert.equal(seen.BASH_ENV, expected.BASH_ENV);
  assert.equal(seen.LD_PRELOAD, expected.LD_PRELOAD);
  assert.ok(seen.PYTHONPATH.split(":").includes(expected.PYTHONPATH), seen.PYTHONPATH);
  assert.equal(seen.AWKWARD, AWKWARD);
  assert.equal(seen.NODE_PATH, path.join(root, "node_path"));
  // Shell commands from the kernel, a reset (a new srt), and the spare: still nothing on the host.
  await runOk(boxed.client, "!node -e 0; bash -c true; echo done");
  const left = ["node", "bash", "python", "preload"].filter((name) => fs.existsSync(ran(name)));
  assert.deepEqual(left, [], left.map((name) => `${name}: ${fs.readFileSync(ran(name), "utf8")}`).join("\n"));
});
