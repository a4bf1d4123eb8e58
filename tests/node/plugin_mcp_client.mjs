// An MCP client (the official TypeScript SDK) for the plugin tests: starts a server command over
// stdio, hands a connected client to a callback, and always closes it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

// Joined text of a tools/call result; throws with that text when the result is an error.
export function resultText(result) {
  const text = (result.content ?? []).filter((block) => block.type === "text").map((block) => block.text).join("\n");
  if (result.isError) throw new Error(`tool error: ${text}`);
  return text;
}

export async function withMcpClient({ command, args = [], env, cwd }, use) {
  const client = new Client({ name: "ipybox-plugin-tests", version: "1.0.0" }, { capabilities: {} });
  const transport = new StdioClientTransport({ command, args, env, cwd, stderr: "inherit" });
  await client.connect(transport);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}
