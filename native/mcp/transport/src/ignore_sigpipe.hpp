#pragma once
// Both sides of a stdio connection write pipes whose reader may vanish: SIGPIPE is ignored in the
// whole process (once, and only if nobody chose another disposition), so that such a write fails
// with EPIPE and closes that one connection instead of ending ipybox. Children do not inherit it:
// process::spawn restores every signal's default before exec.
namespace ipybox::mcp::transport {

void ignore_sigpipe_once();

}  // namespace ipybox::mcp::transport
