#pragma once
// Reads the corpora fixtures/make_text_corpora.py writes: one case a line, tab-separated fields,
// the first the hex of the case's bytes; lines starting with '#' are comments.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "test_paths.hpp"

namespace ipybox::testing {

struct corpus_case {
    std::string bytes;
    std::vector<std::string> fields;  // the fields after the hex
};

inline std::string from_hex(const std::string& hex) {
    std::string bytes;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
        bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    return bytes;
}

// The cases of tests/unit/core/fixtures/<name>, and its comment lines in `comments`.
inline std::vector<corpus_case> read_corpus(const std::string& name,
                                            std::vector<std::string>* comments = nullptr) {
    std::ifstream in(source_dir() / "tests" / "unit" / "core" / "fixtures" / name);
    REQUIRE_MESSAGE(in.good(), "missing corpus " << name);
    std::vector<corpus_case> cases;
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("#")) {
            if (comments) comments->push_back(line);
            continue;
        }
        std::vector<std::string> fields;
        std::size_t start = 0;
        for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
            fields.push_back(line.substr(start, tab - start));
        fields.push_back(line.substr(start));
        corpus_case entry{from_hex(fields.front()), {fields.begin() + 1, fields.end()}};
        cases.push_back(std::move(entry));
    }
    return cases;
}

}  // namespace ipybox::testing
