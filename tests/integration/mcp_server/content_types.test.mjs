// Every MCP content type reaches kernel code through the generated API (issue 25.4): a server of
// our own with one tool per type (tests/support/content_types_server.mjs) and server-everything's
// image and resource tools, registered with register_mcp_server; kernel code calls each run()
// and prints what it got as JSON, which the tests compare with what the servers sent (the saved
// files byte for byte).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import { CONTENT, STRUCTURED } from "../../support/content_types.mjs";
import { REPO, callTool, everythingParams, makeTempDir, removeDir, runFailing, runOk, startServer, textOf } from "./support.mjs";

const root = makeTempDir("mcp-content");
const workspace = path.join(root, "workspace");
const SERVER = path.join(REPO, "tests", "support", "content_types_server.mjs");
let server;
let client;

// Kernel-side: what a TextResult or ToolOutput holds, as one JSON line (extra keys beside it).
const DESCRIBE = `
import json

def describe_item(item):
    fields = {key: getattr(item, key) for key in ("type", "text", "mime_type", "uri", "name", "title", "description")}
    fields = {key: value for key, value in fields.items() if value is not None}
    if item.path is not None:
        fields["path"] = str(item.path)
        fields["is_file"] = item.path.is_file()
    return fields

def show(value, **extra):
    print(json.dumps({
        "class": type(value).__name__,
        "text": value if isinstance(value, str) else value.text,
        "images": [str(image) for image in value.images],
        "structured": value.structured,
        "content": [describe_item(item) for item in value.content],
        "views": {view: [item.type for item in getattr(value, view)]
                  for view in ("audio", "resources", "resource_links")},
        **extra,
    }))
`;

before(async () => {
  fs.mkdirSync(workspace);
  server = await startServer({ workspace, stateDir: root });
  client = server.client;
  for (const [name, params] of [["content", { command: "node", args: [SERVER] }], ["everything", everythingParams()]]) {
    const result = await callTool(client, "register_mcp_server", { server_name: name, server_params: params });
    assert.ok(!result.isError, textOf(result));
  }
  await runOk(client, DESCRIBE);
});

after(async () => {
  const survivors = await server.close();
  removeDir(root);
  assert.deepEqual(survivors, [], "child processes (kernels, MCP servers) outlived the server");
});

// Runs `call` (an expression) in the kernel after importing `module` from mcptools.<server>.
async function shown(server, module, call = `m.run(m.Params())`) {
  const text = await runOk(client, `from mcptools.${server} import ${module} as m\nshow(${call})`);
  return JSON.parse(text);
}

// A saved item: its file is in the workspace's images/outputs/ (apart from plots) and holds the
// bytes the server sent.
function assertSaved(item, base64) {
  assert.equal(item.is_file, true, JSON.stringify(item));
  assert.equal(path.dirname(item.path), path.join(workspace, "images", "outputs"), item.path);
  assert.deepEqual(fs.readFileSync(item.path), Buffer.from(base64, "base64"));
}

const link = CONTENT.resourceLink;
const linkItem = { type: "resource_link", uri: link.uri, name: link.name, mime_type: link.mimeType,
                   title: link.title, description: link.description };
const textResource = CONTENT.textResource.resource;
const textResourceItem = { type: "resource", uri: textResource.uri, mime_type: textResource.mimeType,
                           text: textResource.text };

test("text content is the TextResult's text", async () => {
  const got = await shown("content", "text");
  assert.equal(got.class, "TextResult");
  assert.equal(got.text, "plain text");
  assert.deepEqual(got.content, [{ type: "text", text: "plain text" }]);
});

test("an image is saved as a file with its MIME type, and listed in images", async () => {
  const got = await shown("content", "image");
  const image = got.content[1];
  assert.equal(image.type, "image");
  assert.equal(image.mime_type, "image/png");
  assertSaved(image, CONTENT.image.data);
  assert.deepEqual(got.images, [image.path]);
});

test("audio is saved as a file with its MIME type, and listed in audio", async () => {
  const got = await shown("content", "audio");
  const [audio] = got.content;
  assert.equal(audio.type, "audio");
  assert.equal(audio.mime_type, "audio/wav");
  assertSaved(audio, CONTENT.audio.data);
  assert.deepEqual(got.views.audio, ["audio"]);
  assert.deepEqual(got.images, []);
});

test("an embedded text resource keeps its text, URI and MIME type", async () => {
  const got = await shown("content", "text_resource");
  assert.deepEqual(got.content, [textResourceItem]);
  assert.deepEqual(got.views.resources, ["resource"]);
});

test("an embedded blob resource is saved as a file with its URI and MIME type", async () => {
  const got = await shown("content", "blob_resource");
  const [blob] = got.content;
  const sent = CONTENT.blobResource.resource;
  assert.deepEqual([blob.type, blob.uri, blob.mime_type, blob.text], ["resource", sent.uri, sent.mimeType, undefined]);
  assertSaved(blob, sent.blob);
});

test("a resource link keeps its URI, name, MIME type, title and description", async () => {
  const got = await shown("content", "resource_link");
  assert.deepEqual(got.content, [{ type: "text", text: "a link:" }, linkItem]);
  assert.deepEqual(got.views.resource_links, ["resource_link"]);
});

test("structured content: a typed Result where the tool has an output schema, its content kept", async () => {
  const text = await runOk(client, [
    "from mcptools.content import structured as m",
    "r = m.run(m.Params())",
    "show(r.tool_output(), result=type(r).__name__, count=r.count, label=r.label)",
  ].join("\n"));
  const got = JSON.parse(text);
  assert.equal(got.result, "Result");
  assert.deepEqual([got.count, got.label], [STRUCTURED.count, STRUCTURED.label]);
  assert.deepEqual(got.structured, STRUCTURED);
  assert.deepEqual(got.content[1], linkItem);
});

test("structured content without an output schema is the TextResult's structured", async () => {
  const got = await shown("content", "structured_unschemed");
  assert.equal(got.class, "TextResult");
  assert.equal(got.text, "see structured");
  assert.deepEqual(got.structured, STRUCTURED);
});

test("an isError result raises ToolError carrying every content item", async () => {
  const text = await runOk(client, [
    "from ipybox_runtime.errors import ToolError",
    "from mcptools.content import failing as m",
    "try:",
    "    m.run(m.Params())",
    "except ToolError as error:",
    "    show(error.output, error=type(error).__name__, message=str(error),",
    "         is_error=error.output.is_error, items=[describe_item(item) for item in error.content])",
  ].join("\n"));
  const got = JSON.parse(text);
  assert.equal(got.error, "ToolError");
  assert.equal(got.is_error, true);
  assert.match(got.message, /^the tool failed\n/);
  assert.deepEqual(got.items, got.content);
  const [first, image, embedded, blob, linked] = got.items;
  assert.deepEqual(first, { type: "text", text: "the tool failed" });
  assert.equal(image.mime_type, "image/png");
  assertSaved(image, CONTENT.image.data);
  assert.deepEqual(embedded, textResourceItem);
  assert.equal(blob.uri, CONTENT.blobResource.resource.uri);
  assertSaved(blob, CONTENT.blobResource.resource.blob);
  assert.deepEqual(linked, linkItem);
});

test("an uncaught ToolError shows the agent's line and the message once, without ipybox's frames", async () => {
  const text = await runFailing(client, "from mcptools.content import failing as m\nm.run(m.Params())");
  assert.match(text, /----> 2 m\.run\(m\.Params\(\)\)/);  // the cell's line is kept
  assert.equal(text.split("ToolError: the tool failed").length - 1, 1, text);
  // Neither the runtime's frames nor the generated module's (with the tool's docstring).
  assert.doesNotMatch(text, /ipybox_runtime|mcptools\/content\/failing\.py|call_tool\(/, text);
  assert.ok(Buffer.byteLength(text) < 1024, `${Buffer.byteLength(text)} bytes:\n${text}`);
});

test("an error raised in the agent's own code keeps every frame (control)", async () => {
  const text = await runFailing(client, "def inner():\n    raise KeyError('k')\ninner()");
  assert.match(text, /----> 3 inner\(\)/);
  assert.match(text, /----> 2 +raise KeyError/);
});

// ---- server-everything -----------------------------------------------------------------------------

test("server-everything's get-tiny-image: the PNG it sent, saved with its MIME type", async () => {
  const got = await shown("everything", "get_tiny_image");
  assert.deepEqual(got.content.map((item) => item.type), ["text", "image", "text"]);
  const image = got.content[1];
  assert.equal(image.mime_type, "image/png");
  assert.equal(image.is_file, true);
  assert.deepEqual(fs.readFileSync(image.path).subarray(0, 8), Buffer.from("\x89PNG\r\n\x1a\n", "latin1"));
  assert.deepEqual(got.images, [image.path]);
});

test("server-everything's get-resource-links: every link with its URI, name and MIME type", async () => {
  const got = await shown("everything", "get_resource_links", "m.run(m.Params(count=4))");
  const links = got.content.filter((item) => item.type === "resource_link");
  assert.deepEqual(got.views.resource_links, ["resource_link", "resource_link", "resource_link", "resource_link"]);
  assert.deepEqual(links.map((item) => [item.uri, item.name, item.mime_type]), [
    ["demo://resource/dynamic/blob/1", "Blob Resource 1", "text/plain"],
    ["demo://resource/dynamic/text/2", "Text Resource 2", "text/plain"],
    ["demo://resource/dynamic/blob/3", "Blob Resource 3", "text/plain"],
    ["demo://resource/dynamic/text/4", "Text Resource 4", "text/plain"],
  ]);
  assert.ok(links.every((item) => item.description.startsWith("Resource ")), JSON.stringify(links));
});

test("server-everything's get-resource-reference: a text resource kept, a blob resource saved", async () => {
  const got = await shown("everything", "get_resource_reference",
                          "m.run(m.Params(resourceType='Text', resourceId=2))");
  assert.deepEqual(got.views.resources, ["resource"]);
  const embedded = got.content.find((item) => item.type === "resource");
  assert.equal(embedded.uri, "demo://resource/dynamic/text/2");
  assert.equal(embedded.mime_type, "text/plain");
  assert.match(embedded.text, /^Resource 2: This is a plaintext resource/);

  const blobbed = await shown("everything", "get_resource_reference",
                              "m.run(m.Params(resourceType='Blob', resourceId=3))");
  const blob = blobbed.content.find((item) => item.type === "resource");
  assert.equal(blob.uri, "demo://resource/dynamic/blob/3");
  assert.equal(blob.is_file, true);
  assert.match(fs.readFileSync(blob.path, "utf8"), /^Resource 3: This is a base64 blob created at /);
});
