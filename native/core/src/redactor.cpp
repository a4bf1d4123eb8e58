#include "ipybox/core/redactor.hpp"

#include <algorithm>
#include <mutex>

namespace ipybox::core {
namespace {

std::string ascii_lower(std::string_view text) {
    std::string out(text);
    for (auto& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

struct match {
    std::size_t begin;
    std::size_t end;
    const std::string* names;
};

// Whether the '|'-joined `names` hold `name`.
bool names_include(std::string_view names, std::string_view name) {
    for (std::size_t begin = 0; begin <= names.size();) {
        auto end = names.find('|', begin);
        if (end == std::string_view::npos) end = names.size();
        if (names.substr(begin, end - begin) == name) return true;
        begin = end + 1;
    }
    return false;
}

// `value` with every byte outside RFC 3986's unreserved set written %XX; with `plus`, a space
// as '+' (form encoding).
std::string percent_encoded(std::string_view value, bool plus) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : value) {
        const auto byte = static_cast<unsigned char>(c);
        const bool unreserved = (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
                                (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' ||
                                c == '~';
        if (unreserved) {
            out += c;
        } else if (plus && c == ' ') {
            out += '+';
        } else {
            out += '%';
            out += hex[byte >> 4];
            out += hex[byte & 0x0f];
        }
    }
    return out;
}

// `value` with each backslash doubled and, with `quote`, each `quote` escaped by a backslash:
// how Python's repr(), shells and many loggers write a string inside quotes.
std::string backslash_escaped(std::string_view value, char quote) {
    std::string out;
    for (const char c : value) {
        if (c == '\\' || (quote != 0 && c == quote)) out += '\\';
        out += c;
    }
    return out;
}

// The forms in which a server, a library or ipybox itself writes a value back: as it is,
// JSON-escaped (quotes, backslashes, control characters), backslash-escaped as repr() does in
// either kind of quotes, and percent-encoded as in a URL or a form. Each is searched for.
std::vector<std::string> written_forms(std::string_view value) {
    const auto json = nlohmann::json(std::string(value))
                          .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::vector<std::string> forms{
        std::string(value),
        json.substr(1, json.size() - 2),
        backslash_escaped(value, 0),
        backslash_escaped(value, '\''),
        backslash_escaped(value, '"'),
        percent_encoded(value, false),
        percent_encoded(value, true),
    };
    for (auto& form : forms) form = ascii_lower(form);
    std::sort(forms.begin(), forms.end());
    forms.erase(std::unique(forms.begin(), forms.end()), forms.end());
    return forms;
}

// The pieces of `value` that text may hold apart from the rest: the value itself; each line of
// a multi-line value (a PEM key), as a server's stderr reaches ipybox line by line and only
// the last lines are kept; and the part before the first '#' or '?', where a URL parser cuts
// the value off as the start of a fragment or a query. Pieces other than the value itself
// count only from min_piece_length characters.
std::vector<std::string_view> pieces(std::string_view value) {
    std::vector<std::string_view> out{value};
    const auto add = [&](std::string_view piece) {
        if (piece.size() >= redactor::min_piece_length) out.push_back(piece);
    };
    if (value.find('\n') != std::string_view::npos) {
        for (std::size_t begin = 0; begin <= value.size();) {
            auto end = value.find('\n', begin);
            if (end == std::string_view::npos) end = value.size();
            auto line = value.substr(begin, end - begin);
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            add(line);
            begin = end + 1;
        }
    }
    if (const auto cut = value.find_first_of("#?"); cut != std::string_view::npos) {
        add(value.substr(0, cut));
    }
    return out;
}

}  // namespace

void redactor::remember(std::string_view name, std::string_view value) {
    if (value.size() < min_value_length) return;
    std::vector<std::string> forms;
    for (const auto piece : pieces(value)) {
        auto piece_forms = written_forms(piece);
        forms.insert(forms.end(), std::make_move_iterator(piece_forms.begin()),
                     std::make_move_iterator(piece_forms.end()));
    }

    std::unique_lock lock(mutex_);
    for (auto& form : forms) {
        const auto known = std::find_if(patterns_.begin(), patterns_.end(),
                                        [&](const pattern& p) { return p.lowered == form; });
        if (known == patterns_.end()) {
            patterns_.push_back({std::move(form), std::string(name)});
        } else if (!names_include(known->names, name)) {
            known->names += "|" + std::string(name);
        }
    }
}

bool redactor::empty() const {
    std::shared_lock lock(mutex_);
    return patterns_.empty();
}

std::string redactor::redact(std::string_view text) const {
    std::shared_lock lock(mutex_);
    if (patterns_.empty() || text.size() < min_value_length) return std::string(text);
    const auto lowered = ascii_lower(text);
    std::vector<match> matches;
    for (const auto& p : patterns_) {
        for (auto at = lowered.find(p.lowered); at != std::string::npos;
             at = lowered.find(p.lowered, at + 1)) {
            matches.push_back({at, at + p.lowered.size(), &p.names});
        }
    }
    if (matches.empty()) return std::string(text);
    // Longest first where two begin together, so that a match inside another comes after it.
    std::sort(matches.begin(), matches.end(), [](const match& a, const match& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
    });

    std::string out;
    out.reserve(text.size());
    std::size_t copied = 0;
    for (std::size_t i = 0; i < matches.size();) {
        // One run: this match and every match that overlaps the run so far. Every earlier match
        // begins no later than matches[j], so matches[j] lies inside one of them exactly when it
        // ends no later than the run so far: then it names nothing.
        std::size_t run_end = matches[i].end;
        std::vector<const std::string*> names{matches[i].names};
        std::size_t j = i + 1;
        for (; j < matches.size() && matches[j].begin < run_end; ++j) {
            if (matches[j].end <= run_end) continue;
            run_end = matches[j].end;
            // By name: the forms and pieces of one value are patterns of their own.
            const bool named = std::any_of(names.begin(), names.end(), [&](const auto* names_of) {
                return *names_of == *matches[j].names;
            });
            if (!named) names.push_back(matches[j].names);
        }
        out.append(text.substr(copied, matches[i].begin - copied));
        for (const auto* name : names) out += "${" + *name + "}";
        copied = run_end;
        i = j;
    }
    out.append(text.substr(copied));
    return out;
}

nlohmann::json redactor::redact_json(const nlohmann::json& value) const {
    if (value.is_string()) return redact(value.get_ref<const std::string&>());
    if (value.is_array()) {
        auto result = nlohmann::json::array();
        for (const auto& item : value) result.push_back(redact_json(item));
        return result;
    }
    if (value.is_object()) {
        auto result = nlohmann::json::object();
        for (const auto& [key, item] : value.items()) result[redact(key)] = redact_json(item);
        return result;
    }
    return value;
}

redactor& process_redactor() {
    static redactor instance;
    return instance;
}

std::string redact_secrets(std::string_view text) {
    return process_redactor().redact(text);
}

}  // namespace ipybox::core
