#include "ipybox/codegen/detail/identifiers.hpp"

#include <algorithm>
#include <iterator>

#include "ipybox/core/python_names.hpp"
#include "ipybox/core/utf8.hpp"

namespace ipybox::codegen::detail {
namespace {

struct folded_run {
    char32_t first;
    char32_t last;
    const char* text;  // a run longer than one maps first + i to text[0] + i
};

constexpr folded_run nfkc_ascii_runs[] = {
#include "nfkc_ascii.inc"
};

// Calls `visit(c, keep)` for each code point of `text`, a non-ASCII one that NFKC folds into
// ASCII word text (`ﬁ`, `ｃ`) as the characters it folds into: `keep` is true for ASCII letters,
// digits and (when `underscore_is_word`) `_`; everything else is a separator.
template <typename Visit>
void for_each_ascii_word_char(std::string_view text, bool underscore_is_word, Visit visit) {
    const auto visit_ascii = [&](char ascii) {
        visit(ascii, core::is_identifier_char(ascii) && (underscore_is_word || ascii != '_'));
    };
    for (std::size_t pos = 0; pos < text.size();) {
        const char32_t c = core::decode_utf8(text, pos);
        const std::string folded = c < 0x80 ? std::string(1, static_cast<char>(c)) : nfkc_ascii(c);
        if (folded.empty()) visit_ascii('\0');
        for (const char ascii : folded) visit_ascii(ascii);
    }
}
char upper(char c) {
    return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

std::string identifier_base(std::string_view text, std::string_view fallback) {
    std::string name;
    name.reserve(text.size());
    for_each_ascii_word_char(text, true, [&](char c, bool keep) { name += keep ? c : '_'; });
    name.erase(0, name.find_first_not_of('_'));
    if (name.empty()) return std::string(fallback);
    if (!core::is_identifier_start(name[0])) name = std::string(fallback) + "_" + name;  // a digit
    return name;
}

}  // namespace

std::string nfkc_ascii(char32_t c) {
    const auto* end = std::end(nfkc_ascii_runs);
    const auto* run = std::lower_bound(std::begin(nfkc_ascii_runs), end, c,
                                       [](const folded_run& r, char32_t v) { return r.last < v; });
    if (run == end || c < run->first) return {};
    if (run->first == run->last) return run->text;
    return std::string(1, static_cast<char>(run->text[0] + (c - run->first)));
}

std::string pascal_case(std::string_view text) {
    std::string name;
    bool start_of_word = true;
    for_each_ascii_word_char(text, false, [&](char c, bool keep) {
        if (keep) name += start_of_word ? upper(c) : c;
        start_of_word = !keep;
    });
    return name;
}

std::string class_name_from(std::string_view hint, std::string_view fallback) {
    std::string name = pascal_case(hint);
    if (name.empty() || !core::is_identifier_start(name[0])) name = std::string(fallback) + name;
    // `None`, `True` and `False` are the keywords PascalCase can produce.
    if (core::is_python_keyword(name)) name += fallback;
    return name;
}

std::string singular(std::string_view plural) {
    std::string word(plural);
    const auto ends_with = [&](std::string_view suffix) { return word.ends_with(suffix); };
    if (word.size() > 3 && ends_with("ies")) {
        word.replace(word.size() - 3, 3, "y");
    } else if (word.size() > 3 &&
               (ends_with("xes") || ends_with("ches") || ends_with("shes") || ends_with("sses"))) {
        word.resize(word.size() - 2);
    } else if (word.size() > 1 && ends_with("s") && !ends_with("ss") && !ends_with("us") &&
               !ends_with("is")) {
        word.pop_back();
    }
    return word;
}

std::string attribute_base_name(std::string_view property, const std::set<std::string>& reserved) {
    std::string name = identifier_base(property, "field");
    if (core::is_python_keyword(name) || reserved.contains(name)) name += '_';
    return name;
}

bool is_plain_attribute(std::string_view property, const std::set<std::string>& reserved) {
    return core::is_public_identifier(property) && !core::is_python_keyword(property) &&
           !reserved.contains(std::string(property));
}

std::vector<std::string> model_attribute_names(const std::vector<std::string>& properties,
                                               const std::set<std::string>& reserved) {
    // Nothing mangled may land on a property name (the key of another property) or a reserved
    // name; plain names are their own attributes, taken before any mangled one is chosen.
    std::set<std::string> taken = reserved;
    taken.insert(properties.begin(), properties.end());
    std::vector<std::string> names(properties.size());
    for (std::size_t i = 0; i < properties.size(); ++i) {
        if (is_plain_attribute(properties[i], reserved)) names[i] = properties[i];
    }
    // The others in byte order of their names, so that the result depends on the set alone.
    std::vector<std::size_t> order(properties.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return properties[a] < properties[b]; });
    for (const std::size_t i : order) {
        if (!names[i].empty()) continue;
        const std::string base = attribute_base_name(properties[i], reserved);
        std::string candidate = base;
        for (int n = 2; taken.contains(candidate); ++n) candidate = base + "_" + std::to_string(n);
        taken.insert(candidate);
        names[i] = candidate;
    }
    return names;
}

std::string enum_member_base_name(std::string_view value) {
    std::string name = identifier_base(value, "value");
    if (core::is_python_keyword(name) || reserved_enum_member_names().contains(name)) name += '_';
    return name;
}

const std::set<std::string>& reserved_enum_member_names() {
    // `mro` is refused by Enum itself; `name` and `value` would hide the member's own properties.
    static const std::set<std::string> names{"mro", "name", "value"};
    return names;
}

const std::set<std::string>& reserved_attribute_names() {
    static const std::set<std::string> names{
// The whole public attribute surface of a model class under pydantic 1.10 and 2.x, ToolModel's
// own methods and the metaclass's (`mro`, `register`), listed by a script from the installed
// versions; tests/python checks that the list still covers them.
#include "model_attribute_names.inc"
        // kept so that generated names stay stable: an attribute of older pydantic 1 releases
        "fields"};
    static const std::set<std::string> with_body_names = [] {
        std::set<std::string> all = names;
        all.insert(class_body_names().begin(), class_body_names().end());
        return all;
    }();
    return with_body_names;
}

const std::set<std::string>& class_body_names() {
    // render_types.cpp writes these into annotations and defaults; `date` and `datetime` are
    // kept so that generated names stay stable.
    static const std::set<std::string> names{
        "Annotated", "Any",  "Constraints", "Dict", "Field", "List",  "Literal", "Optional",
        "Union",     "date", "datetime",    "str",  "int",   "float", "bool"};
    return names;
}

const std::set<std::string>& reserved_class_names() {
    static const std::set<std::string> names = [] {
        std::set<std::string> all{"Params",    "Result", "ToolModel",      "TextResult",
                                  "call_tool", "Enum",   "rebuild_models", "SERVER_NAME",
                                  "TOOL_NAME", "run"};
        all.insert(class_body_names().begin(), class_body_names().end());
        return all;
    }();
    return names;
}

std::vector<std::string> assign_unique(const std::vector<std::string>& wanted,
                                       const std::vector<std::string>& exact,
                                       std::set<std::string> taken, std::string_view separator) {
    std::vector<std::string> assigned(wanted.size());
    for (std::size_t i = 0; i < wanted.size(); ++i) {
        if (i < exact.size() && wanted[i] == exact[i] && taken.insert(wanted[i]).second) {
            assigned[i] = wanted[i];
        }
    }
    for (std::size_t i = 0; i < wanted.size(); ++i) {
        if (!assigned[i].empty()) continue;
        std::string candidate = wanted[i];
        for (int n = 2; !taken.insert(candidate).second; ++n) {
            candidate = wanted[i] + std::string(separator) + std::to_string(n);
        }
        assigned[i] = candidate;
    }
    return assigned;
}

std::string name_registry::claim(const std::string& base) {
    std::string candidate = base;
    for (int n = 2; !taken_.insert(candidate).second; ++n) candidate = base + std::to_string(n);
    return candidate;
}

}  // namespace ipybox::codegen::detail
