#include "ipybox/codegen/detail/schema_walk.hpp"

namespace ipybox::codegen::detail {
namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// One pointer segment: URI %-escapes first (a fragment is a URI part), then `~1` -> `/`,
// `~0` -> `~`.
std::string unescape_segment(std::string_view segment) {
    std::string decoded;
    for (std::size_t i = 0; i < segment.size(); ++i) {
        if (segment[i] == '%' && i + 2 < segment.size()) {
            const int high = hex_value(segment[i + 1]);
            const int low = hex_value(segment[i + 2]);
            if (high >= 0 && low >= 0) {
                decoded += static_cast<char>(high * 16 + low);
                i += 2;
                continue;
            }
        }
        decoded += segment[i];
    }
    std::string unescaped;
    for (std::size_t i = 0; i < decoded.size(); ++i) {
        const bool tilde_escape = decoded[i] == '~' && i + 1 < decoded.size() &&
                                  (decoded[i + 1] == '0' || decoded[i + 1] == '1');
        if (tilde_escape) {
            unescaped += decoded[i + 1] == '0' ? '~' : '/';
            ++i;
        } else {
            unescaped += decoded[i];
        }
    }
    return unescaped;
}

std::vector<std::string> pointer_segments(std::string_view ref) {
    std::vector<std::string> segments;
    ref.remove_prefix(1);  // '#'
    if (ref.empty()) return segments;
    ref.remove_prefix(1);  // '/'
    for (;;) {
        const auto slash = ref.find('/');
        segments.push_back(unescape_segment(ref.substr(0, slash)));
        if (slash == std::string_view::npos) break;
        ref.remove_prefix(slash + 1);
    }
    return segments;
}

}  // namespace

const nlohmann::json* resolve_local_ref(const nlohmann::json& root, std::string_view ref) {
    if (ref.empty() || ref[0] != '#' || (ref.size() > 1 && ref[1] != '/')) return nullptr;
    const nlohmann::json* node = &root;
    for (const auto& segment : pointer_segments(ref)) {
        if (node->is_object()) {
            const auto it = node->find(segment);
            if (it == node->end()) return nullptr;
            node = &*it;
        } else if (node->is_array()) {
            if (segment.empty() || segment.size() > 9 ||
                segment.find_first_not_of("0123456789") != std::string::npos) {
                return nullptr;
            }
            const auto index = std::stoul(segment);
            if (index >= node->size()) return nullptr;
            node = &(*node)[index];
        } else {
            return nullptr;
        }
    }
    return node;
}

std::string ref_name(std::string_view ref) {
    if (ref.size() < 2 || ref[0] != '#') return {};
    const auto segments = pointer_segments(ref);
    return segments.empty() ? std::string() : segments.back();
}

std::vector<std::string> schema_types(const nlohmann::json& schema) {
    std::vector<std::string> types;
    if (!schema.is_object()) return types;
    const auto it = schema.find("type");
    if (it == schema.end()) return types;
    if (it->is_string()) {
        types.push_back(it->get<std::string>());
    } else if (it->is_array()) {
        for (const auto& item : *it) {
            if (item.is_string()) types.push_back(item.get<std::string>());
        }
    }
    return types;
}

std::string string_member(const nlohmann::json& schema, std::string_view key) {
    if (!schema.is_object()) return {};
    const auto it = schema.find(key);
    return it != schema.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<std::uint64_t> count_member(const nlohmann::json& schema, std::string_view key) {
    if (!schema.is_object()) return std::nullopt;
    const auto it = schema.find(key);
    if (it == schema.end()) return std::nullopt;
    if (it->is_number_unsigned()) return it->get<std::uint64_t>();
    if (it->is_number_integer() && it->get<std::int64_t>() >= 0) {
        return static_cast<std::uint64_t>(it->get<std::int64_t>());
    }
    if (it->is_number_float()) {
        const double value = it->get<double>();
        const bool whole = value >= 0 && value < 1e15 &&
                           value == static_cast<double>(static_cast<std::uint64_t>(value));
        if (whole) {
            return static_cast<std::uint64_t>(value);
        }
    }
    return std::nullopt;
}

std::optional<nlohmann::json> number_member(const nlohmann::json& schema, std::string_view key) {
    if (!schema.is_object()) return std::nullopt;
    const auto it = schema.find(key);
    if (it == schema.end() || !it->is_number()) return std::nullopt;
    return *it;
}

std::vector<std::string> required_names(const nlohmann::json& schema) {
    std::vector<std::string> names;
    if (!schema.is_object()) return names;
    const auto it = schema.find("required");
    if (it == schema.end() || !it->is_array()) return names;
    for (const auto& item : *it) {
        if (item.is_string()) names.push_back(item.get<std::string>());
    }
    return names;
}

bool has_properties(const nlohmann::json& schema) {
    if (!schema.is_object()) return false;
    const auto it = schema.find("properties");
    return it != schema.end() && it->is_object() && !it->empty();
}

}  // namespace ipybox::codegen::detail
