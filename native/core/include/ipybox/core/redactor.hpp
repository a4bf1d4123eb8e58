#pragma once
// The one redaction rule: a value that ipybox filled into server parameters from a `${NAME}`
// placeholder (the host's environment or the workspace .env) never leaves ipybox. Wherever text
// leaves (errors and results to the kernel, tool results to the MCP client, log lines, approval
// questions, the CLI's messages, generated sources), every occurrence of such a value is
// replaced by `${NAME}`.
//
// Matching is ASCII case-insensitive (a URL's host is lower-cased before it is printed) and also
// finds a value in its JSON-escaped form (parameters quoted with dump()). Overlapping matches
// are replaced as one run, so no piece of either value is left. The run names its variables
// longest match first: a match that lies wholly inside a longer one names nothing (the text is
// the longer value, which happens to contain the other, e.g. a prefix two values share), and
// matches that only overlap are named in order ("${A}${B}").
//
// Parts of a value are redacted on their own wherever text may carry them apart from the rest:
// each line of a multi-line value (a server's stderr, a log, reaches ipybox line by line, and
// only a tail of lines may be kept), and the part before the first '#' or '?' (where a URL
// parser cuts a value off as a fragment or a query). Such a part counts from min_piece_length
// characters; a shorter one is hidden only while the whole value is there. Text that is equally
// a value or part of several variables (two values sharing the part before '#'), and nothing
// longer, is named by all of them, "${A|B}": it could be either, and naming one would point a
// reader at the wrong secret.
//
// Values shorter than min_value_length are not redacted: one to three characters ("1", "on",
// "dev") cannot be told apart from the text around them, replacing them would garble every
// message, and a value that short is no secret. Empty values are ignored too.
//
// Thread-safe: remember() and redact() may be called from any thread at any time.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

namespace ipybox::core {

class redactor {
  public:
    static constexpr std::size_t min_value_length = 4;
    static constexpr std::size_t min_piece_length = 8;

    // Adds `value`, filled from `${name}`. A value or part already known from another variable
    // gets this name too.
    void remember(std::string_view name, std::string_view value);

    std::string redact(std::string_view text) const;
    // Every string in `value`, object keys included; the structure is kept.
    nlohmann::json redact_json(const nlohmann::json& value) const;

    bool empty() const;

  private:
    struct pattern {
        std::string lowered;  // ASCII lower-cased form searched for
        std::string names;    // of the variables it is a form of, '|'-joined: "A" or "A|B"
    };
    std::vector<pattern> patterns_;
    mutable std::shared_mutex mutex_;
};

// The process-wide redactor: placeholders are filled into it (workspace/placeholders.hpp) and
// every ipybox log line goes through it (log.hpp).
redactor& process_redactor();

// process_redactor().redact(text).
std::string redact_secrets(std::string_view text);

}  // namespace ipybox::core
