// What the HTTP tests share: the real SDK clients of both eras (1.x's Streamable HTTP transport
// for 2025-11-25, @modelcontextprotocol/client 2.x for 2026-07-28) from tests/node.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { NODE_MODULES, importPeer } from "../mcp_server/support.mjs";

export const { StreamableHTTPClientTransport: LegacyHttpTransport } =
  await importPeer("@modelcontextprotocol/sdk", "./client/streamableHttp.js");
const modernPackage = JSON.parse(fs.readFileSync(
  path.join(NODE_MODULES, "@modelcontextprotocol", "client", "package.json"), "utf8"));
assert.match(modernPackage.version, /^2\./, "tests/node must hold @modelcontextprotocol/client 2.x");
export const { Client: ModernClient, StreamableHTTPClientTransport: ModernHttpTransport } =
  await import(pathToFileURL(path.join(NODE_MODULES, "@modelcontextprotocol", "client",
                                       modernPackage.exports["."].import.default)).href);
