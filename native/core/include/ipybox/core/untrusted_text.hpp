#pragma once
// Text from an untrusted source (an MCP server, kernel code) made safe to put in front of a
// person: a terminal prompt, an elicitation message, a log line. Pure, thread-safe.
//
// The person sees exactly which characters the text holds, never what they would do:
// - control characters (C0, DEL, C1), so every escape sequence (clear screen, cursor moves,
//   "conceal", OSC 52 clipboard writes), show as `\n`, `\r`, `\t` or `\xNN` / `\u0085`;
// - invisible and look-alike characters show as `\uXXXX` / `\UXXXXXXXX`: bidi embeddings,
//   overrides and isolates, zero-width characters, the line and paragraph separators, tag
//   characters, variation selectors, private-use characters and every space but U+0020;
// - bytes that are not UTF-8 show as `\xNN`;
// - a backslash shows as `\\`, so an escape in the output always stands for one character
//   (unless escape_backslashes is off, for text that may already be rendered), and in quoted
//   form `"` shows as `\"`, so the text cannot end its quotes.
// Whatever the input, the output holds no byte below 0x20 except, where kept on purpose, line
// feeds and tabs; it is valid UTF-8.
#include <cstddef>
#include <string>
#include <string_view>

namespace ipybox::core {

struct untrusted_text_options {
    // Text of more characters (code points; a stray byte counts as one) keeps its first and last
    // max_characters / 2 around the marker "...[N of M characters cut]...". 0: never cut.
    std::size_t max_characters = 0;
    // Wrapped in `"`, with `"` inside escaped: for a value within a line of fixed text.
    bool quoted = false;
    // Line feeds and tabs kept as they are (a multi-line body; see render_untrusted_block).
    // Otherwise they are escaped like every other control character.
    bool keep_line_breaks = false;
    // Off for a whole message that may hold parts rendered before (a log line, an error's
    // text): their escapes stay as they are instead of being doubled. Control and invisible
    // characters are escaped either way; only the output's unambiguity is given up.
    bool escape_backslashes = true;
};

std::string render_untrusted(std::string_view text, const untrusted_text_options& options = {});

// render_untrusted(text, {.max_characters, .quoted = true}).
std::string quote_untrusted(std::string_view text, std::size_t max_characters = 0);

// `text`, already safe to show (rendered, so well-formed UTF-8), cut in the middle like
// render_untrusted cuts when it has more than max_characters characters (clip_characters,
// clipping.hpp); unchanged otherwise. Not for raw text: nothing is escaped here.
std::string cut_in_middle(std::string_view text, std::size_t max_characters);

// A multi-line body (a file, a shell cell): rendered with its line breaks kept and every line,
// the first included, prefixed with `gutter`, so that no line of it can pass for a line of the
// fixed text around it. Ends without a line break.
std::string render_untrusted_block(std::string_view text, std::string_view gutter);

}  // namespace ipybox::core
