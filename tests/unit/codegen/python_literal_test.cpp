// The Python literal encoders: every output is a closed literal, whatever the input bytes.
#include "ipybox/codegen/python_literal.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

using namespace ipybox::codegen;

namespace {

// True when `literal` is one quoted Python string literal: opening and closing quote equal, no
// unescaped quote or raw control character in between, every backslash starting an escape.
bool is_closed_literal(const std::string& literal) {
    if (literal.size() < 2) return false;
    const char quote = literal.front();
    if ((quote != '\'' && quote != '"') || literal.back() != quote) return false;
    for (std::size_t i = 1; i + 1 < literal.size(); ++i) {
        const auto c = static_cast<unsigned char>(literal[i]);
        if (c == '\\') {
            if (i + 2 >= literal.size()) return false;  // would escape the closing quote
            ++i;
            continue;
        }
        if (c == static_cast<unsigned char>(quote) || c < 0x20 || c == 0x7F) return false;
    }
    return true;
}

// True when `doc` is a closed triple-quoted literal: no unescaped `"""` inside and no raw NUL/CR.
bool is_closed_docstring(const std::string& doc) {
    if (doc.size() < 6 || !doc.starts_with("\"\"\"") || !doc.ends_with("\"\"\"")) return false;
    const std::string body = doc.substr(3, doc.size() - 6);
    int run = 0;
    for (std::size_t i = 0; i < body.size(); ++i) {
        const auto c = static_cast<unsigned char>(body[i]);
        if (c == '\\') {
            if (i + 1 >= body.size()) return false;
            ++i;
            run = 0;
            continue;
        }
        if (c == 0 || c == '\r') return false;
        run = c == '"' ? run + 1 : 0;
        if (run >= 3) return false;
    }
    return run == 0;  // a raw quote at the end would merge with the closing quotes
}

}  // namespace

TEST_CASE("string literals use single quotes like repr, double when only single quotes occur") {
    CHECK(python_string_literal("abc") == "'abc'");
    CHECK(python_string_literal("it's") == "\"it's\"");
    CHECK(python_string_literal("a'b\"c") == "'a\\'b\"c'");
    CHECK(python_string_literal("") == "''");
}

TEST_CASE("escapes backslashes, so \\N{...} and \\x escapes in the text stay text") {
    CHECK(python_string_literal("\\") == "'\\\\'");
    CHECK(python_string_literal("\\N{BULLET}") == "'\\\\N{BULLET}'");
    CHECK(python_string_literal("ends with \\") == "'ends with \\\\'");
}

TEST_CASE("escapes control characters, NUL, CR and line separators") {
    CHECK(python_string_literal("a\nb\rc\td") == "'a\\nb\\rc\\td'");
    CHECK(python_string_literal(std::string("a\0b", 3)) == "'a\\x00b'");
    CHECK(python_string_literal("\x7f\x1b") == "'\\x7f\\x1b'");
    CHECK(python_string_literal("\xc2\x85") == "'\\x85'");                // NEL
    CHECK(python_string_literal("\xe2\x80\xa8") == "'\\u2028'");          // LINE SEPARATOR
    CHECK(python_string_literal("\xe2\x80\xa9") == "'\\u2029'");          // PARAGRAPH SEPARATOR
    CHECK(python_string_literal("\xe2\x80\xae") == "'\\u202e'");          // RIGHT-TO-LEFT OVERRIDE
    CHECK(python_string_literal("\xef\xbb\xbf") == "'\\ufeff'");          // BOM
    CHECK(python_string_literal("\xf3\xa0\x80\x81") == "'\\U000e0001'");  // LANGUAGE TAG
}

TEST_CASE("keeps printable non-ASCII text readable") {
    CHECK(python_string_literal("Z\xc3\xbcrich \xe4\xb8\xad \xf0\x9f\x98\x80") ==
          "'Z\xc3\xbcrich \xe4\xb8\xad \xf0\x9f\x98\x80'");
}

TEST_CASE("replaces invalid UTF-8, overlong forms and encoded surrogates with U+FFFD") {
    CHECK(python_string_literal("\xff") == "'\\ufffd'");
    CHECK(python_string_literal("\xc0\xa7") == "'\\ufffd\\ufffd'");  // overlong quote
    CHECK(python_string_literal("\xc1\x9c") == "'\\ufffd\\ufffd'");  // overlong backslash
    CHECK(python_string_literal("\xed\xa0\x80") == "'\\ufffd\\ufffd\\ufffd'");  // U+D800
    CHECK(python_string_literal("\xe2\x82") == "'\\ufffd\\ufffd'");             // truncated
    CHECK(python_string_literal("\xf4\x90\x80\x80") == "'\\ufffd\\ufffd\\ufffd\\ufffd'");
}

TEST_CASE("every single byte and every pair of hostile bytes gives a closed literal") {
    for (int byte = 0; byte < 256; ++byte) {
        const std::string text(1, static_cast<char>(byte));
        CHECK_MESSAGE(is_closed_literal(python_string_literal(text)), "byte " << byte);
        CHECK_MESSAGE(is_closed_docstring(python_docstring("x" + text, 0)), "byte " << byte);
    }
    const std::string specials = std::string("'\"\\\n\r\0\xc0\xe2", 9);
    for (const char a : specials) {
        for (const char b : specials) {
            const std::string text{a, b, a};
            CHECK(is_closed_literal(python_string_literal(text)));
            CHECK(is_closed_docstring(python_docstring(text + "end", 4)));
        }
    }
}

TEST_CASE("escapes triple quotes in descriptions") {
    const auto doc =
        python_docstring("break \"\"\" + __import__(\"os\").system(\"evil\") + \"\"\"", 0);
    CHECK(is_closed_docstring(doc));
    CHECK(doc ==
          "\"\"\"break \\\"\\\"\" + __import__(\"os\").system(\"evil\") + \\\"\\\"\\\"\"\"\"");
}

TEST_CASE("escapes a quote or backslash at the end of a docstring") {
    CHECK(python_docstring("ends with \"", 0) == "\"\"\"ends with \\\"\"\"\"");
    CHECK(python_docstring("ends with \\", 0) == "\"\"\"ends with \\\\\"\"\"");
    CHECK(is_closed_docstring(python_docstring("test\\\n\"\"\" + evil", 4)));
}

TEST_CASE("indents docstring continuation lines but not empty lines") {
    CHECK(python_docstring("First line.\n\nSecond paragraph.\nThird line.", 4) ==
          "\"\"\"First line.\n\n    Second paragraph.\n    Third line.\n    \"\"\"");
}

TEST_CASE("cleans docstrings like inspect.cleandoc") {
    CHECK(clean_docstring_text("\n    This is tool 3.\n\n    Args:\n        name: A name\n    ") ==
          "This is tool 3.\n\nArgs:\n    name: A name");
    CHECK(clean_docstring_text("a\r\nb\rc  \t") == "a\nb\nc");
    CHECK(clean_docstring_text("   \n\t\n") == "");
}

TEST_CASE("docstrings keep NUL, CR-like and separator characters as escapes") {
    const std::string text(
        "a\0b\xe2\x80\xa8"
        "c\x0b"
        "d",
        9);
    const auto doc = python_docstring(text, 0);
    CHECK(doc == "\"\"\"a\\x00b\\u2028c\\x0bd\"\"\"");
}

TEST_CASE("wraps long docstring lines at spaces within 100 columns") {
    std::string text;
    for (int i = 0; i < 40; ++i) text += "word" + std::to_string(i) + " ";
    const auto doc = python_docstring(text, 4);
    std::size_t start = 0;
    while (start < doc.size()) {
        auto end = doc.find('\n', start);
        if (end == std::string::npos) end = doc.size();
        CHECK(4 + end - start <= 100);
        start = end + 1;
    }
    CHECK(doc.find("\n    word") != std::string::npos);
}

TEST_CASE("renders JSON values as Python literals") {
    CHECK(python_value_literal(nullptr) == "None");
    CHECK(python_value_literal(true) == "True");
    CHECK(python_value_literal(false) == "False");
    CHECK(python_value_literal(-3) == "-3");
    CHECK(python_value_literal(18446744073709551615ULL) == "18446744073709551615");
    CHECK(python_value_literal(0.5) == "0.5");
    CHECK(python_value_literal(1e300) == "1e+300");
    CHECK(python_value_literal(2.0) == "2.0");
    CHECK(python_value_literal(std::nan("")) == "None");
    CHECK(python_value_literal(INFINITY) == "1e999");
    CHECK(python_value_literal(nlohmann::json::parse(R"({"a'": [1, null, {"\"\"\"": "x\n"}]})")) ==
          R"({"a'": [1, None, {'"""': 'x\n'}]})");
}

TEST_CASE("splits long literals after spaces and newlines into closed pieces") {
    const auto pieces = python_string_literal_lines("aaa bbb ccc\nddd", 4);
    REQUIRE(pieces.size() == 4);
    CHECK(pieces[0] == "'aaa '");
    CHECK(pieces[1] == "'bbb '");
    CHECK(pieces[2] == "'ccc\\n'");
    CHECK(pieces[3] == "'ddd'");
    CHECK(python_string_literal_lines("", 10) == std::vector<std::string>{"''"});
}

TEST_CASE("an ASCII literal escapes every code point past ASCII as Python's ascii() does") {
    CHECK(python_ascii_literal("\xef\xac\x81le") == "'\\ufb01le'");
    CHECK(python_ascii_literal("na\xc3\xafve") == "'na\\xefve'");
    CHECK(python_ascii_literal("\xf0\x9f\x99\x82") == "'\\U0001f642'");
    CHECK(python_ascii_literal("it's \"x\"\n") == "'it\\'s \"x\"\\n'");
    CHECK(python_ascii_literal("plain") == python_string_literal("plain"));
}
