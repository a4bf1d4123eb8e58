// Python's name rules in one place: what they accept agrees with CPython's own str.isidentifier()
// and keyword.iskeyword() on a generated corpus (fixtures/make_text_corpora.py), and the names
// ipybox builds on them (server names, gentools names, names shown in approvals) follow them.
#include <doctest/doctest.h>

#include <sstream>

#include "ipybox/core/python_names.hpp"
#include "text_corpus.hpp"

using namespace ipybox::core;
using ipybox::testing::read_corpus;

TEST_SUITE("core.python_names") {
    TEST_CASE("the keyword list is CPython's keyword.kwlist, in its order") {
        std::vector<std::string> comments;
        read_corpus("python_names_corpus.txt", &comments);
        std::string kwlist;
        for (const auto& line : comments) {
            if (line.starts_with("# kwlist ")) kwlist = line.substr(9);
        }
        std::istringstream words(kwlist);
        std::vector<std::string> expected;
        for (std::string word; words >> word;) expected.push_back(word);
        REQUIRE(expected.size() == python_keywords.size());
        for (std::size_t i = 0; i < expected.size(); ++i) CHECK(python_keywords[i] == expected[i]);
    }

    TEST_CASE("agrees with CPython's isidentifier and iskeyword on a generated corpus") {
        const auto cases = read_corpus("python_names_corpus.txt");
        REQUIRE(cases.size() > 1000);
        std::size_t identifiers = 0, keywords = 0, non_ascii_identifiers = 0;
        for (const auto& entry : cases) {
            const bool isidentifier = entry.fields.at(0) == "1";
            const bool iskeyword = entry.fields.at(1) == "1";
            const bool isascii = entry.fields.at(2) == "1";
            INFO("case (utf-8): " << entry.bytes);
            CHECK(is_ascii_identifier(entry.bytes) == (isidentifier && isascii));
            CHECK(is_python_keyword(entry.bytes) == iskeyword);
            CHECK(is_python_name(entry.bytes) == (isidentifier && isascii && !iskeyword));
            CHECK(is_public_identifier(entry.bytes) ==
                  (isidentifier && isascii && entry.bytes.front() != '_'));
            identifiers += isidentifier && isascii ? 1 : 0;
            keywords += iskeyword ? 1 : 0;
            non_ascii_identifiers += isidentifier && !isascii ? 1 : 0;
        }
        // The corpus reaches every side of each rule.
        CHECK(identifiers > 300);
        CHECK(keywords == python_keywords.size());
        CHECK(non_ascii_identifiers > 20);  // Python's, refused here: see python_names.hpp
    }

    TEST_CASE("soft keywords and keywords in another case are names") {
        for (const char* word : {"match", "case", "type", "_", "none", "TRUE", "Class", "class_"}) {
            CHECK_MESSAGE(is_python_name(word), word);
        }
        for (const char* word : {"class", "None", "async", "await", "nonlocal"}) {
            CHECK_MESSAGE(is_python_keyword(word), word);
            CHECK_MESSAGE(is_ascii_identifier(word), word);
            CHECK_FALSE(is_python_name(word));
        }
    }

    TEST_CASE("a public identifier does not start with an underscore") {
        CHECK(is_public_identifier("files"));
        CHECK(is_public_identifier("class"));  // a keyword: callers refuse those themselves
        CHECK_FALSE(is_public_identifier("_private"));
        CHECK_FALSE(is_public_identifier("__init__"));
        CHECK_FALSE(is_public_identifier("2fa"));
        CHECK_FALSE(is_public_identifier(""));
    }

    TEST_CASE("identifier_end finds the end of the identifier at a position, if one starts there") {
        const std::string_view text = "from mcptools.fs_2.read import x";
        CHECK(identifier_end(text, 5) == 13);   // "mcptools"
        CHECK(identifier_end(text, 14) == 18);  // "fs_2"
        CHECK(identifier_end(text, 4) == 4);    // a space
        CHECK(identifier_end("2fa", 0) == 0);   // a digit cannot start one
        CHECK(identifier_end("_a1", 0) == 3);
        CHECK(identifier_end("ab", 2) == 2);           // at the end
        CHECK(identifier_end("caf\xc3\xa9", 0) == 3);  // ASCII only
    }
}
