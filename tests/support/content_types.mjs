// The content blocks tests/support/content_types_server.mjs returns, shared with the test that
// checks what kernel code gets from them. The bytes are not real images, sounds or PDFs: ipybox
// saves whatever the base64 decodes to.
export const base64 = (text) => Buffer.from(text, "latin1").toString("base64");

export const CONTENT = {
  image: { type: "image", mimeType: "image/png", data: base64("\x89PNG\r\n\x1a\nnot really a picture") },
  audio: { type: "audio", mimeType: "audio/wav", data: base64("RIFF\x00\x00\x00\x00WAVEfmt sound") },
  textResource: { type: "resource", resource: {
    uri: "test://notes/today.md", mimeType: "text/markdown", text: "# Notes\nbuy milk" } },
  blobResource: { type: "resource", resource: {
    uri: "test://reports/q3.pdf", mimeType: "application/pdf", blob: base64("%PDF-1.7 three pages") } },
  resourceLink: { type: "resource_link", uri: "test://data/sales.csv", name: "sales.csv",
                  mimeType: "text/csv", title: "Sales", description: "Sales by month" },
};

export const STRUCTURED = { count: 3, label: "three" };
