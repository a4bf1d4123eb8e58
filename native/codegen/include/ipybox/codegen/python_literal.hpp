#pragma once
// Encoders from arbitrary text and JSON to Python source literals. Pure, thread-safe.
//
// The output is always a complete, self-delimiting literal that evaluates to the input: the
// quote character, backslashes, control characters (NUL, CR, LF, ...), line and paragraph
// separators, bidirectional overrides and other invisible code points are escaped; invalid UTF-8
// becomes U+FFFD. Printable non-ASCII text stays readable.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ipybox::codegen {

// A single-line literal in the style of Python's repr(): single quotes unless the text holds a
// single quote and no double quote.
std::string python_string_literal(std::string_view text);

// The same literal with every non-ASCII code point escaped too (`'\ufb01le'` for `'ﬁle'`), as
// Python's ascii() writes it: what looks alike in print reads apart.
std::string python_ascii_literal(std::string_view text);

// The text cut into pieces whose literals are at most about `width` characters long, split after
// spaces and newlines where possible; written one per line inside parentheses they concatenate to
// the text. Returns one literal for short text.
std::vector<std::string> python_string_literal_lines(std::string_view text, std::size_t width);

// A docstring literal `"""..."""`. The text is first cleaned the way inspect.cleandoc does
// (line endings normalised, common indentation and surrounding blank lines removed, trailing
// spaces dropped), lines that would pass 100 columns are broken at spaces, and continuation
// lines are indented by `indent` spaces. Only whitespace changes: `doc.split()` equals
// `text.split()` in Python.
std::string python_docstring(std::string_view text, std::size_t indent);

// The cleaning step of python_docstring alone (exposed for tests).
std::string clean_docstring_text(std::string_view text);

// A JSON value as a Python expression: null/true/false -> None/True/False, numbers unchanged,
// strings via python_string_literal, arrays -> lists, objects -> dicts (keys in JSON order).
std::string python_value_literal(const nlohmann::json& value);

}  // namespace ipybox::codegen
