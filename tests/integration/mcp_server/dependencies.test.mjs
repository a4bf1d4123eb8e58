// A saved action's dependencies, added through the normal approval (issue 24, deliverable 1): an
// action of the user library needs an MCP server and a package that project B lacks. Importing it
// names both and offers add_dependencies(); the user is asked, with the server's registration
// and the package in full; declined, nothing is added (the control); approved, the server is
// registered (mcptools generated, remembered) and the package installed for every project, and
// the action runs at once. No wildcard or default of a policy allows it: a client that cannot
// ask gets a rejection. No package index: the package is a wheel built here.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";

import { buildWheel, callTool, everythingParams, runFailing, runOk, startServer, textOf } from "./support.mjs";

const root = fs.realpathSync(fs.mkdtempSync(path.join("/var/tmp", "ipybox-dependencies-")));
const dataHome = path.join(root, "data");
const servers = [];

// gentools.deps.<name> in the user library, written as save_gentool records it: it calls
// everything.echo and imports the package `module`, installed from `spec`.
function userAction(name, module, spec) {
  const folder = path.join(dataHome, "ipybox", "gentools", "deps", name);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, "..", "__init__.py"), "");
  const requires = { servers: { everything: everythingParams() }, tools: {}, packages: { [module]: spec } };
  fs.writeFileSync(path.join(folder, "__init__.py"), [
    "from ipybox_runtime.requirements import require",
    `REQUIRES: dict = ${JSON.stringify(requires)}`,
    "require(__name__, REQUIRES)",
    "from .api import *",
    "from .api import __all__",
    "",
  ].join("\n"));
  fs.writeFileSync(path.join(folder, "api.py"), [
    "__all__ = ['run']",
    "def run(message: str) -> str:",
    "    from .impl import run as _run",
    "    return _run(message)",
    "",
  ].join("\n"));
  fs.writeFileSync(path.join(folder, "impl.py"), [
    `import ${module}`,
    "from mcptools.everything import echo",
    "def run(message):",
    `    return echo.run(echo.Params(message=message)) + ' ' + ${module}.VALUE`,
    "",
  ].join("\n"));
  return `gentools.deps.${name}`;
}

async function start(project, { policy, answers = [], elicitation = true } = {}) {
  fs.mkdirSync(project, { recursive: true });
  const args = ["mcp", "--workspace", project];
  if (policy) {
    const file = path.join(project, "..", `${path.basename(project)}-policy.json`);
    fs.writeFileSync(file, JSON.stringify(policy));
    args.push("--approval-policy", file);
  }
  const asked = [];
  const server = await startServer({
    workspace: project, stateDir: path.join(root, "state"), args,
    env: { XDG_DATA_HOME: dataHome, PIP_NO_INDEX: "1" },
    capabilities: elicitation ? { elicitation: {} } : {},
    onElicit: elicitation
      ? (params) => {
        asked.push(params.message);
        return answers.shift() ? { action: "accept", content: { approve: true } } : { action: "decline" };
      }
      : undefined,
  });
  servers.push(server);
  return { client: server.client, asked };
}

after(async () => {
  for (const server of servers) await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const addCall = (module) =>
  `from ipybox_runtime.requirements import add_dependencies\nprint(add_dependencies(${JSON.stringify(module)}))`;

test("declined, nothing is added; approved, the server and the package are added and the action runs", async () => {
  const wheel = buildWheel(path.join(root, "wheels"), "ipybox_dep_pkg", "1.0", "from-the-wheel");
  const action = userAction("echo_it", "ipybox_dep_pkg", wheel);
  const project = path.join(root, "project-b");
  const { client, asked } = await start(project, { answers: [false, true] });

  const missing = await runFailing(client, `import ${action}`);
  assert.match(missing, /MissingDependencyError/);
  assert.match(missing, /MCP server 'everything' is not registered in this project/);
  assert.match(missing, /package '.*ipybox_dep_pkg-1\.0-py3-none-any\.whl' \(import ipybox_dep_pkg\) is not installed/);
  assert.match(missing, /add_dependencies\('gentools\.deps\.echo_it'\)/);

  // The control: declined, nothing is registered or installed.
  const declined = await runFailing(client, addCall(action));
  assert.match(declined, /ApprovalRejectedError: Approval request for the dependencies of gentools\.deps\.echo_it rejected: the user declined/);
  assert.equal(fs.existsSync(path.join(project, "mcptools", "everything")), false);
  assert.equal(fs.existsSync(path.join(dataHome, "ipybox", "site-packages", "ipybox_dep_pkg")), false);

  // The question shows the action, the server's whole registration and the package.
  assert.equal(asked.length, 1);
  const question = asked[0];
  assert.match(question, /^The code asks ipybox to add to this project what a saved code action needs\.\n/);
  assert.match(question, /\n  action:    "gentools\.deps\.echo_it"\n/);
  assert.match(question, /\n  server:    everything \(registered for this project; a command in it runs on this machine\)\n/);
  assert.ok(question.includes(`    |   "command": "node"\n`), question);
  assert.ok(question.includes(JSON.stringify(everythingParams().args[0])), question);
  assert.match(question, /\n  package:   ".*ipybox_dep_pkg-1\.0-py3-none-any\.whl" \(for every project: the user's site folder\)/);

  const report = await runOk(client, addCall(action));
  assert.match(report, /registered MCP server everything/);
  assert.match(report, /installed ".*ipybox_dep_pkg.*" for every project/);
  assert.equal(asked.length, 2);
  assert.ok(fs.existsSync(path.join(project, "mcptools", "everything", "echo.py")));
  assert.equal(await runOk(client, `import ${action} as action\nprint(action.run("hi"))`),
    "Echo: hi from-the-wheel");
});

test("an allow-everything policy still asks, and a client that cannot ask gets a rejection", async () => {
  const wheel = buildWheel(path.join(root, "wheels"), "ipybox_dep_other", "1.0", "other");
  const action = userAction("echo_other", "ipybox_dep_other", wheel);
  const project = path.join(root, "project-c");
  const { client } = await start(project, {
    policy: { default: "allow", rules: [{ match: "*", action: "allow" }, { match: "ipybox.*", action: "allow" }] },
    elicitation: false,
  });
  const refused = await runFailing(client, addCall(action));
  assert.match(refused, /ApprovalRejectedError: .*cannot ask/);
  assert.equal(fs.existsSync(path.join(project, "mcptools", "everything")), false);
});

test("kernel code cannot smuggle a pip option or a reserved server name past the tool server", async () => {
  const project = path.join(root, "project-d");
  const { client, asked } = await start(project, { answers: [true, true] });
  const text = await runOk(client, [
    "from ipybox_runtime import tool_client",
    "for servers, packages in [({}, [{'spec': '--index-url=http://127.0.0.1:9/', 'for_user': False}]),",
    "                          ({'ipybox': {'command': 'true'}}, []),",
    "                          ({'../x': {'command': 'true'}}, []),",
    "                          ({}, [])]:",
    "    try:",
    "        tool_client.add_dependencies('gentools.x.y', servers, packages)",
    "    except Exception as error:",
    "        print(type(error).__name__, error)",
  ].join("\n"));
  assert.match(text, /ToolRunnerError .*may not be a pip option/);
  assert.match(text, /ToolRunnerError .*the server name ipybox is reserved/);
  assert.match(text, /ToolRunnerError .*invalid server name '\.\.\/x'/);
  assert.match(text, /ToolRunnerError .*there is nothing to add/);
  assert.deepEqual(asked, []);  // refused before anyone is asked
});

// Issue 35, item 2: a proposal under the name of a server the user registered, with another
// command, used to be asked as if it were new, and the approved replacement ran and was kept.
test("a proposal that would replace the user's registration is refused before anyone is asked", async () => {
  const project = path.join(root, "project-e");
  const { client, asked } = await start(project, { answers: [false] });
  const registered = await callTool(client, "register_mcp_server",
    { server_name: "everything", server_params: everythingParams() });
  assert.ok(!registered.isError, textOf(registered));
  const recorded = fs.readFileSync(path.join(project, "mcptools", "everything", "registration.json"), "utf8");
  const marker = path.join(root, "replaced-server-ran");
  const propose = (name, params) => [
    "from ipybox_runtime import tool_client",
    "try:",
    `    print(tool_client.add_dependencies('gentools.x.y', {${JSON.stringify(name)}: ${JSON.stringify(params)}}, []))`,
    "except Exception as error:",
    "    print(type(error).__name__, error)",
  ].join("\n");
  const planted = { command: "sh", args: ["-c", `touch ${marker}`] };

  const refused = await runOk(client, propose("everything", planted));
  assert.match(refused, /ToolRunnerError .*already has MCP servers registered as everything with other parameters/);
  assert.match(refused, /never replaces a registration.*nobody was asked/);
  assert.deepEqual(asked, []);
  assert.equal(fs.readFileSync(path.join(project, "mcptools", "everything", "registration.json"), "utf8"), recorded);
  assert.equal(fs.existsSync(marker), false);
  // The registration in use is still the user's: the server answers.
  assert.equal(await runOk(client, "from mcptools.everything import echo\nprint(echo.run(echo.Params(message='still')))"),
    "Echo: still");

  // The same registration as the user's is no replacement: it reaches the question (declined).
  const same = await runOk(client, propose("everything", everythingParams()));
  assert.match(same, /ApprovalRejectedError/);
  // The control: the same proposal under a name nobody registered reaches the question too.
  const fresh = await runOk(client, propose("other", planted));
  assert.match(fresh, /ApprovalRejectedError/);
  assert.equal(asked.length, 2);
  assert.match(asked[1], /server:    other \(registered for this project; a command in it runs on this machine\)/);
  assert.equal(fs.existsSync(marker), false);
});

test("a registration naming another project's folder is flagged in the question (issue 41)", async () => {
  const project = path.join(root, "project-f");
  const { client, asked } = await start(project, { answers: [false, false] });
  const elsewhere = path.join(root, "project-a", "data");
  const propose = (args) => [
    "from ipybox_runtime import tool_client",
    "try:",
    `    tool_client.add_dependencies('gentools.x.y', {'fs': ${JSON.stringify({ command: "node", args })}}, [])`,
    "except Exception as error:",
    "    print(type(error).__name__)",
  ].join("\n");

  assert.equal(await runOk(client, propose([everythingParams().args[0], elsewhere])), "ApprovalRejectedError");
  assert.equal(asked.length, 1);
  assert.ok(asked[0].includes(`\n  project:   ${JSON.stringify(project)} (what \${IPYBOX_WORKSPACE} stands for)\n`), asked[0]);
  assert.ok(asked[0].includes(`\n  CHECK FIRST: it names ${JSON.stringify(elsewhere)}, outside this project: ` +
    "the server would work there, not here"), asked[0]);
  // Only the folder: the script the server runs is an existing file, not flagged.
  assert.equal(asked[0].split("CHECK FIRST").length, 2, asked[0]);

  // The control: recorded with the placeholder (or inside this project), nothing is flagged.
  assert.equal(await runOk(client, propose([everythingParams().args[0], "${IPYBOX_WORKSPACE}/data",
    path.join(project, "data")])), "ApprovalRejectedError");
  assert.equal(asked.length, 2);
  assert.ok(!asked[1].includes("CHECK FIRST"), asked[1]);
});
