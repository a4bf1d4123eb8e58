// Starts each pinned MCP server of package.json over stdio, calls tools/list once and prints
// {"<server>": [tools...], ...} on stdout. Offline: every server gets dummy credentials and a
// scratch directory, and only initialize and tools/list are sent, so none needs the network.
//
//   node tests/servers-node/list_tools.mjs [name ...]      (default: every server below)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(HERE, "node_modules", ".bin");
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ipybox-servers-"));

// name -> how to start it: a bin of node_modules/.bin, its arguments, extra environment.
const SERVERS = {
  playwright: { bin: "playwright-mcp", args: ["--headless", "--isolated"] },
  chrome_devtools: { bin: "chrome-devtools-mcp", args: ["--headless", "--isolated"] },
  context7: { bin: "context7-mcp", args: [] },
  filesystem: { bin: "mcp-server-filesystem", args: [scratch] },
  sequential_thinking: { bin: "mcp-server-sequential-thinking", args: [] },
  memory: { bin: "mcp-server-memory", args: [], env: { MEMORY_FILE_PATH: path.join(scratch, "memory.json") } },
  everything: { bin: "mcp-server-everything", args: [] },
  github: { bin: "mcp-server-github", args: [], env: { GITHUB_PERSONAL_ACCESS_TOKEN: "dummy" } },
  notion: { bin: "notion-mcp-server", args: [], env: { NOTION_TOKEN: "dummy" } },
  gitlab: {
    bin: "mcp-gitlab",
    args: [],
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: "dummy", GITLAB_API_URL: "http://127.0.0.1:9/api/v4" },
  },
  chart: { bin: "mcp-server-chart", args: [] },
  slack: { bin: "mcp-server-slack", args: [], env: { SLACK_BOT_TOKEN: "dummy", SLACK_TEAM_ID: "T0" } },
  brave_search: { bin: "mcp-server-brave-search", args: [], env: { BRAVE_API_KEY: "dummy" } },
  tavily: { bin: "tavily-mcp", args: [], env: { TAVILY_API_KEY: "dummy" } },
  firecrawl: { bin: "firecrawl-mcp", args: [], env: { FIRECRAWL_API_KEY: "fc-dummy" } },
};

async function listTools(name) {
  const spec = SERVERS[name];
  const env = {
    PATH: process.env.PATH,
    HOME: scratch,
    NO_PROXY: "*",
    HTTP_PROXY: "http://127.0.0.1:9",
    HTTPS_PROXY: "http://127.0.0.1:9",
    ...(spec.env || {}),
  };
  const transport = new StdioClientTransport({
    command: path.join(BIN, spec.bin),
    args: spec.args,
    env,
    cwd: scratch,
    stderr: "ignore",
  });
  const client = new Client({ name: "ipybox-real-servers", version: "1.0.0" });
  await client.connect(transport, { timeout: 60000 });
  try {
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: 60000 });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  } finally {
    await client.close();
  }
}

const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(SERVERS);
const result = {};
const failures = {};
for (const name of names) {
  try {
    result[name] = await listTools(name);
  } catch (error) {
    failures[name] = String(error && error.message ? error.message : error);
  }
}
fs.rmSync(scratch, { recursive: true, force: true });
// Exit only once the whole document is flushed: a pipe takes 64 KiB at a time.
process.stdout.write(JSON.stringify({ servers: result, failures }) + "\n", () => process.exit(0));
