// The Docker image and the codeact-docker plugin's server in it (ctest label `docker`).
//
//   node tests/integration/plugin/docker.test.mjs        (as root)
//
// It builds the image with ./docker-build.sh for a non-root host user (UID/GID 1234, the owner
// of the test's project directory), then starts the server through the plugin's launcher the way
// Claude Code does, lists its tools, executes code and calls an MCP server (server-everything,
// mounted read-only) inside the container, and checks that everything the container wrote into
// the project belongs to 1234:1234. (Node resolves the peers' dependencies only under a directory
// named node_modules, hence the mount target /opt/peers/node_modules.) Finally `claude mcp list` must show codeact-docker Connected.
//
// Prerequisites: docker (Debian's docker.io) and debootstrap. When no Docker daemon answers, the
// test starts one that creates no network (--bridge=none --iptables=false ...) and stops it at
// the end; when debian:bookworm-slim is missing it makes it with debootstrap. Containers run
// with --network none; only `docker build` uses the host network, for Debian's apt mirror.
// Time: the image build compiles ipybox (IPYBOX_DOCKER_JOBS jobs, default 1): about 25 minutes
// from scratch on 2 shared cores, seconds when Docker's layer cache holds it; the rest ~1 minute.
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import test from "node:test";

import { resultText, withMcpClient } from "../../node/plugin_mcp_client.mjs";
import {
  EVERYTHING, NODE_DIR, ROOT, makeSandbox, projectVersion, requireFile, runClaude, serveMarketplaceOverGit,
} from "../../node/plugin_support.mjs";

const HOST_UID = 1234;
const HOST_GID = 1234;
const BASE_IMAGE = process.env.BASE_IMAGE ?? "debian:bookworm-slim";
const IMAGE = `ipybox-test:${projectVersion()}`;
const LAUNCHER = path.join(ROOT, "plugins", "codeact-docker", "bin", "ipybox-mcp");

const sh = (command, args, options = {}) => spawnSync(command, args, { encoding: "utf8", ...options });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const elapsed = (since) => `${((Date.now() - since) / 1000).toFixed(0)} s`;

function requireCommand(name, hint) {
  if (sh("sh", ["-c", `command -v ${name}`]).status !== 0) throw new Error(`${name} is not installed; ${hint}`);
}

// A daemon that answers, started here (without any network of its own) when none does.
async function ensureDockerDaemon(t) {
  if (sh("docker", ["info"]).status === 0) return;
  requireCommand("dockerd", "install it: apt-get install docker.io");
  if (process.getuid() !== 0) throw new Error("no Docker daemon answers, and starting one needs root");
  const log = fs.openSync(path.join(os.tmpdir(), "ipybox-test-dockerd.log"), "a");
  const daemon = spawn("dockerd", ["--bridge=none", "--iptables=false", "--ip-forward=false", "--ip-masq=false"], {
    detached: true, stdio: ["ignore", log, log],
  });
  t.after(async () => {
    daemon.kill("SIGTERM");
    for (let waited = 0; daemon.exitCode === null && waited < 20_000; waited += 200) await sleep(200);
  });
  for (let waited = 0; sh("docker", ["info"]).status !== 0; waited += 500) {
    if (waited > 60_000 || daemon.exitCode !== null) throw new Error("dockerd did not come up; see /tmp/ipybox-test-dockerd.log");
    await sleep(500);
  }
}

function ensureBaseImage() {
  if (sh("docker", ["image", "inspect", BASE_IMAGE]).status === 0) return;
  if (BASE_IMAGE !== "debian:bookworm-slim") throw new Error(`base image ${BASE_IMAGE} is missing`);
  requireCommand("debootstrap", "install it: apt-get install debootstrap");
  const rootfs = fs.mkdtempSync(path.join(os.tmpdir(), "ipybox-rootfs-"));
  try {
    execFileSync("debootstrap", ["--variant=minbase", "bookworm", rootfs], { stdio: "inherit" });
    execFileSync("sh", ["-c", `tar -C '${rootfs}' -c . | docker import - ${BASE_IMAGE}`], { stdio: "inherit" });
  } finally {
    fs.rmSync(rootfs, { recursive: true, force: true });
  }
}

function ownedByHostUser(root) {
  const wrong = [];
  const walk = (current) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      const stat = fs.lstatSync(full);
      if (stat.uid !== HOST_UID || stat.gid !== HOST_GID) wrong.push(`${path.relative(root, full)} ${stat.uid}:${stat.gid}`);
      if (stat.isDirectory()) walk(full);
    }
  };
  walk(root);
  return wrong;
}

test("the image builds, and codeact-docker's server works on a mounted project as the host user", { timeout: 5_000_000 }, async (t) => {
  requireCommand("docker", "install it: apt-get install docker.io");
  requireFile(EVERYTHING, "run: npm install --prefix tests/node");
  await ensureDockerDaemon(t);
  ensureBaseImage();

  let since = Date.now();
  const build = sh(path.join(ROOT, "docker-build.sh"), ["--network", "host"], {
    env: {
      ...process.env, IMAGE: "ipybox-test", UID_IN_IMAGE: String(HOST_UID), GID_IN_IMAGE: String(HOST_GID),
      JOBS: process.env.IPYBOX_DOCKER_JOBS ?? "1",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  console.log(`# docker-build.sh took ${elapsed(since)}`);
  assert.equal(build.status, 0, "docker-build.sh failed (its output is above)");
  const label = sh("docker", ["image", "inspect", "--format", '{{ index .Config.Labels "ipybox.uid" }}', IMAGE]);
  assert.equal(label.stdout.trim(), String(HOST_UID));
  const inside = sh("docker", ["run", "--rm", "--network", "none", IMAGE, "sh", "-c", "ipybox --version; id -u; id -g; node --version"]);
  assert.equal(inside.status, 0, inside.stderr);
  const [version, uid, gid] = inside.stdout.trim().split("\n");
  assert.deepEqual([version, uid, gid], [`ipybox ${projectVersion()}`, String(HOST_UID), String(HOST_GID)]);

  const sandbox = makeSandbox(t, "docker");
  fs.chownSync(sandbox.project, HOST_UID, HOST_GID);  // the host user's project
  const serverEnv = {
    ...sandbox.env,
    CLAUDE_PROJECT_DIR: sandbox.project,
    IPYBOX_DOCKER_IMAGE: IMAGE,
    IPYBOX_DOCKER_RUN_ARGS: `--network none --mount type=bind,source=${path.join(NODE_DIR, "node_modules")},target=/opt/peers/node_modules,readonly`,
  };

  since = Date.now();
  await withMcpClient({ command: LAUNCHER, env: serverEnv, cwd: sandbox.project }, async (client) => {
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
    assert.deepEqual(tools, ["execute_ipython_cell", "install_package", "register_mcp_server", "reset", "search_tools"]);

    const call = async (name, args) => resultText(await client.callTool({ name, arguments: args }, undefined, { timeout: 180_000 }));
    const where = await call("execute_ipython_cell", {
      code: [
        "import os",
        "from pathlib import Path",
        "Path('made_in_container.txt').write_text('hello from the container')",
        "from ipybox_runtime.gentools import new_gentool",
        "print(new_gentool('demo', 'saved'))",
        "print('cwd', os.getcwd(), 'ids', os.getuid(), os.getgid())",
      ].join("\n"),
    });
    assert.match(where, /\/app\/workspace\/gentools\/demo\/saved/);
    assert.match(where, new RegExp(`cwd /app/workspace ids ${HOST_UID} ${HOST_GID}`));

    const registered = await call("register_mcp_server", {
      server_name: "everything",
      server_params: { command: "node", args: ["/opt/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"] },
    });
    assert.match(registered, /get_sum/);
    const summed = await call("execute_ipython_cell", {
      code: "from mcptools.everything import get_sum\nprint(get_sum.run(get_sum.Params(a=2, b=3)))",
    });
    assert.match(summed, /The sum of 2 and 3 is 5/);
  });
  console.log(`# the server session in the container took ${elapsed(since)}`);

  assert.equal(fs.readFileSync(path.join(sandbox.project, "made_in_container.txt"), "utf8"), "hello from the container");
  for (const file of ["gentools/demo/saved/api.py", "mcptools/everything/get_sum.py"]) {
    assert.ok(fs.existsSync(path.join(sandbox.project, file)), `${file} missing on the host`);
  }
  assert.deepEqual(ownedByHostUser(sandbox.project), [], "files the container wrote must belong to the host user");

  // A missing image: the launcher says how to build it, with the real docker.
  const missing = sh(LAUNCHER, [], { env: { ...serverEnv, IPYBOX_DOCKER_IMAGE: "ipybox-test:no-such-tag" }, input: "" });
  assert.equal(missing.status, 1, missing.stderr);
  assert.match(missing.stderr, /image ipybox-test:no-such-tag does not exist/);
  assert.match(missing.stderr, /docker-build\.sh/);

  // And through Claude Code: the installed codeact-docker plugin's server connects.
  for (const args of [["plugin", "marketplace", "add", serveMarketplaceOverGit(sandbox)], ["plugin", "install", "codeact-docker@ipybox"]]) {
    const result = runClaude(sandbox, args);
    assert.equal(result.status, 0, result.description);
  }
  const listed = runClaude(sandbox, ["mcp", "list"], { env: { IPYBOX_DOCKER_IMAGE: IMAGE, IPYBOX_DOCKER_RUN_ARGS: "--network none" } });
  assert.match(listed.stdout, /plugin:codeact-docker:ipybox: .* ✔ Connected/, listed.description);
});
