// A stdio MCP server that lists N synthetic tools (default 500) with the schema features code
// generation has to handle: bounds and defaults, enums, nested objects, arrays, nullable types,
// names that are not Python identifiers, and output schemas on every third tool. tools/list is
// paginated (100 per page). Calls answer with a short text. Used by bench/codegen_bench.mjs.
//
//   node bench/synthetic_mcp_server.mjs [N]
import { importPeer } from "./node_peers.mjs";

const { Server } = await importPeer("@modelcontextprotocol/sdk", "./server/index.js");
const { StdioServerTransport } = await importPeer("@modelcontextprotocol/sdk", "./server/stdio.js");
const { CallToolRequestSchema, ListToolsRequestSchema } = await importPeer("@modelcontextprotocol/sdk", "./types.js");

const count = Number(process.argv[2] ?? 500);
const pageSize = 100;

function tool(i) {
  const name = i % 4 === 0 ? `fetch-item-${i}` : i % 4 === 1 ? `class_${i}` : `tool_${i}`;
  const entry = {
    name,
    description: `Synthetic tool number ${i}. Looks things up "quickly" and returns {results}.`,
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: `What tool ${i} looks for`, minLength: 1 },
        limit: { type: "integer", minimum: 1, maximum: 100, default: 10 },
        mode: { type: "string", enum: ["fast", "thorough", "off-line"] },
        "page-token": { type: ["string", "null"] },
        filters: {
          type: "object",
          properties: {
            tags: { type: "array", items: { type: "string" } },
            since: { type: "string", format: "date-time" },
            weight: { type: "number", exclusiveMinimum: 0 },
          },
          required: ["tags"],
        },
        verbose: { type: "boolean", default: false },
      },
      required: ["query"],
    },
  };
  if (i % 3 === 0) {
    entry.outputSchema = {
      type: "object",
      properties: {
        count: { type: "integer" },
        items: {
          type: "array",
          items: { type: "object", properties: { id: { type: "string" }, score: { type: ["number", "null"] } },
                   required: ["id", "score"] },
        },
      },
      required: ["count", "items"],
      additionalProperties: false,
    };
  }
  return entry;
}

const tools = Array.from({ length: count }, (_, i) => tool(i));
const server = new Server({ name: "synthetic", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  const start = Number(request.params?.cursor ?? 0);
  const end = Math.min(start + pageSize, tools.length);
  return { tools: tools.slice(start, end), ...(end < tools.length ? { nextCursor: String(end) } : {}) };
});
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: "text", text: `called ${request.params.name}` }],
}));
await server.connect(new StdioServerTransport());
