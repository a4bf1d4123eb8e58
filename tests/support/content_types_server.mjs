// An MCP server (stdio, the official TypeScript SDK's low-level Server) with one tool per content
// type a tool result can carry: text, image, audio, an embedded text resource, an embedded blob
// resource, a resource link, structured content (with and without an output schema), and an
// isError result carrying several of them. What they carry is in content_types.mjs, which the
// test (tests/integration/mcp_server/content_types.test.mjs) compares with what kernel code got.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { CONTENT, STRUCTURED } from "./content_types.mjs";

// This folder is outside tests/node, so the SDK is imported by its path there.
const sdk = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "node", "node_modules",
                         "@modelcontextprotocol", "sdk", "dist", "esm");
const load = (file) => import(pathToFileURL(path.join(sdk, file)).href);
const { Server } = await load("server/index.js");
const { StdioServerTransport } = await load("server/stdio.js");
const { CallToolRequestSchema, ListToolsRequestSchema } = await load("types.js");

const text = (value) => ({ type: "text", text: value });

const TOOLS = {
  text: { content: [text("plain text")] },
  image: { content: [text("an image:"), CONTENT.image] },
  audio: { content: [CONTENT.audio] },
  text_resource: { content: [CONTENT.textResource] },
  blob_resource: { content: [CONTENT.blobResource] },
  resource_link: { content: [text("a link:"), CONTENT.resourceLink] },
  // With an output schema, run() returns a typed Result; the content stays reachable.
  structured: {
    content: [text(JSON.stringify(STRUCTURED)), CONTENT.resourceLink], structuredContent: STRUCTURED,
    outputSchema: { type: "object", properties: { count: { type: "integer" }, label: { type: "string" } },
                    required: ["count", "label"] },
  },
  structured_unschemed: { content: [text("see structured")], structuredContent: STRUCTURED },
  failing: {
    isError: true,
    content: [text("the tool failed"), CONTENT.image, CONTENT.textResource, CONTENT.blobResource,
              CONTENT.resourceLink],
  },
};

const server = new Server({ name: "content-types", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: Object.entries(TOOLS).map(([name, tool]) => ({
    name, description: `Returns ${name.replaceAll("_", " ")} content`,
    inputSchema: { type: "object", properties: {} },
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
  })),
}));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const tool = TOOLS[request.params.name];
  if (!tool) return { isError: true, content: [text(`no tool ${request.params.name}`)] };
  const { outputSchema, ...result } = tool;
  return result;
});
await server.connect(new StdioServerTransport());
