#pragma once
// The question a person answers for an approval request: at the terminal of `ipybox run` and in
// the elicitation of `ipybox mcp`. Pure; thread-safe.
//
// Everything in a request is untrusted: the tool's name and schema come from an MCP server, the
// arguments, commands and files from kernel code. The layout is fixed so that no such string can
// imitate it: each line starts with a fixed label; every untrusted part is quoted and escaped on
// its label's line (core/untrusted_text.hpp) or, for multi-line text (a shell cell, a file),
// shown line by line behind a gutter ("    | "). No untrusted string can start a line, so none
// can pass for a label, another tool or the prompt. The tool is named by the Python name the
// generated code uses (an ASCII identifier, checked), with the server's own name, escaped, beside
// it when they differ. Every argument is shown, each long value cut in the middle with its
// length; every file a save writes is shown in full. Values filled from ${VAR} placeholders are
// redacted (core/redactor.hpp).
//
// The text ends with a line break; the front end adds its prompt ("Approve? [Y/n] ").
#include <string>

#include "ipybox/approval/request.hpp"

namespace ipybox::app {

// Characters of one argument's value shown before it is cut in the middle.
inline constexpr std::size_t question_value_characters = 300;

std::string approval_question(const approval::request& what);

}  // namespace ipybox::app
