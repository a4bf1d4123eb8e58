#pragma once
// Python's rules for names, as ipybox applies them to the names it generates (mcptools
// packages, modules, classes, attributes) and the names it accepts (server names, gentools
// categories and actions) or shows as they are (approval questions). Pure, thread-safe.
//
// ipybox's names are ASCII only: Python NFKC-normalises a non-ASCII identifier on import but
// not on disk, so such a name could import a different file than the one ipybox wrote.
// Within ASCII, is_ascii_identifier agrees with str.isidentifier() and is_python_keyword with
// keyword.iskeyword() (tests/unit/core/python_names_corpus.txt pins both against CPython).
#include <array>
#include <cstddef>
#include <string_view>

namespace ipybox::core {

// Python's keywords, keyword.kwlist (the same in every Python 3.7 to 3.13): a name that is one
// cannot be imported, assigned or used as an attribute. The soft keywords (match, case, type,
// _) are names and are not in it.
inline constexpr std::array<std::string_view, 35> python_keywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

bool is_python_keyword(std::string_view word);

// [A-Za-z_]: a byte an identifier may start with.
constexpr bool is_identifier_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
// [A-Za-z0-9_]: a byte an identifier may continue with.
constexpr bool is_identifier_char(char c) {
    return is_identifier_start(c) || (c >= '0' && c <= '9');
}

// `[A-Za-z_][A-Za-z0-9_]*`. Keywords are identifiers too: see is_python_name.
bool is_ascii_identifier(std::string_view word);

// An ASCII identifier that does not start with `_`: a public name, never one of the names
// Python gives meaning to (`__init__`, `__pycache__`). Keywords pass: see is_python_name.
bool is_public_identifier(std::string_view word);

// An ASCII identifier that is not a keyword: usable as a module, package, class, attribute or
// variable name.
bool is_python_name(std::string_view word);

// The end of the ASCII identifier that starts at text[at] (the longest run of identifier
// bytes), or `at` when none starts there (at the end of `text`, or not at an identifier start).
std::size_t identifier_end(std::string_view text, std::size_t at);

}  // namespace ipybox::core
