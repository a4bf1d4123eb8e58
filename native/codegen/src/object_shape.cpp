// allOf, folded: the properties an object schema declares once its members are merged, and the
// one schema that scalar members amount to. Every member must hold, so a member that closes its
// properties (`additionalProperties: false`) closes the whole object to its own property names,
// a property two members declare differently must satisfy both (an `allOf` of the two), and
// bounds and lengths of scalar members combine to the stricter one.
#include <algorithm>
#include <array>
#include <string_view>

#include "ipybox/codegen/detail/schema_walk.hpp"
#include "module_builder.hpp"

namespace ipybox::codegen::detail {
namespace {

using nlohmann::json;

const json closed_marker = json(false);

// Keywords that describe a schema without constraining its values.
bool is_annotation_keyword(const std::string& key) {
    return key == "title" || key == "description" || key == "default" || key == "examples" ||
           key == "$comment" || key == "deprecated" || key == "readOnly" || key == "writeOnly";
}

constexpr std::array<std::string_view, 4> lower_bounds{"minimum", "exclusiveMinimum", "minLength",
                                                       "minItems"};
constexpr std::array<std::string_view, 4> upper_bounds{"maximum", "exclusiveMaximum", "maxLength",
                                                       "maxItems"};

bool is_mergeable_keyword(const std::string& key) {
    const auto in = [&key](const auto& keywords) {
        return std::find(keywords.begin(), keywords.end(), key) != keywords.end();
    };
    return key == "type" || key == "pattern" || key == "format" || key == "multipleOf" ||
           in(lower_bounds) || in(upper_bounds) || is_annotation_keyword(key);
}

// The types both lists admit (no list: every type); integer is the number that is whole.
std::optional<std::vector<std::string>> common_types(
    const std::optional<std::vector<std::string>>& a, const std::vector<std::string>& b) {
    if (!a) return b;
    std::vector<std::string> both;
    const auto admits = [](const std::vector<std::string>& types, const std::string& type) {
        return std::find(types.begin(), types.end(), type) != types.end() ||
               (type == "integer" &&
                std::find(types.begin(), types.end(), "number") != types.end());
    };
    for (const auto& type : *a) {
        if (admits(b, type)) both.push_back(type);
    }
    for (const auto& type : b) {
        if (admits(*a, type) && std::find(both.begin(), both.end(), type) == both.end() &&
            !(type == "number" && admits(both, "integer")))
            both.push_back(type);
    }
    std::erase_if(both, [&both](const std::string& type) {
        return type == "number" && std::find(both.begin(), both.end(), "integer") != both.end();
    });
    return both;
}

}  // namespace

std::optional<json> merge_scalar_members(const json& root, const json& members) {
    json merged = json::object();
    std::optional<std::vector<std::string>> types;
    for (const auto& member : members) {
        const auto ref = string_member(member, "$ref");
        const json* part = ref.empty() ? &member : resolve_local_ref(root, ref);
        if (part == nullptr || !part->is_object()) return std::nullopt;
        for (const auto& [key, value] : part->items()) {
            if (!is_mergeable_keyword(key)) return std::nullopt;
            if (is_annotation_keyword(key) || key == "format") continue;
            if (key == "type") {
                const auto listed = schema_types(*part);
                if (listed.empty()) return std::nullopt;
                types = common_types(types, listed);
                continue;
            }
            const auto it = merged.find(key);
            if (it == merged.end()) {
                merged[key] = value;
            } else if (*it != value) {
                const bool lower =
                    std::find(lower_bounds.begin(), lower_bounds.end(), key) != lower_bounds.end();
                const bool upper =
                    std::find(upper_bounds.begin(), upper_bounds.end(), key) != upper_bounds.end();
                if (!(lower || upper) || !value.is_number() || !it->is_number()) {
                    return std::nullopt;  // two patterns, two steps: no one keyword says both
                }
                if (lower == (value > *it)) *it = value;
            }
        }
    }
    if (!types || types->empty()) return std::nullopt;
    merged["type"] = *types;
    return merged;
}

bool object_shape::closed() const {
    return additional == &closed_marker;
}

bool is_annotation_only(const json& schema) {
    if (!schema.is_object()) return false;
    for (const auto& [key, value] : schema.items()) {
        if (!is_annotation_keyword(key)) return false;
    }
    return true;
}

object_shape module_builder::shape_of(const json& schema) {
    object_shape shape;
    std::optional<std::set<std::string>> allowed;  // names every closing member declares
    fold_into(shape, allowed, schema, 0);
    if (allowed) {
        std::erase_if(shape.properties,
                      [&allowed](const auto& entry) { return !allowed->contains(entry.first); });
        shape.additional = &closed_marker;
        shape.contradictory =
            std::any_of(shape.required.begin(), shape.required.end(),
                        [&allowed](const std::string& name) { return !allowed->contains(name); });
    }
    return shape;
}

void module_builder::fold_into(object_shape& shape, std::optional<std::set<std::string>>& allowed,
                               const json& schema, int depth) {
    if (!schema.is_object() || depth > 8) return;
    shape.parts.push_back(&schema);
    if (const auto it = schema.find("allOf"); it != schema.end() && it->is_array()) {
        for (const auto& member : *it) {
            const auto ref = string_member(member, "$ref");
            const json* part = ref.empty() ? &member : resolve_local_ref(*doc_->root, ref);
            if (part != nullptr) fold_into(shape, allowed, *part, depth + 1);
        }
    }
    std::set<std::string> own_names;
    if (const auto it = schema.find("properties"); it != schema.end() && it->is_object()) {
        for (const auto& [name, property] : it->items()) {
            own_names.insert(name);
            auto [slot, inserted] = shape.properties.emplace(name, &property);
            if (!inserted && slot->second != &property && *slot->second != property) {
                // Both hold: kept by this builder, so that its address stays valid.
                owned_schemas_.push_back(json{{"allOf", json::array({*slot->second, property})}});
                slot->second = &owned_schemas_.back();
            }
        }
    }
    for (auto& name : required_names(schema)) shape.required.push_back(std::move(name));
    if (const auto it = schema.find("additionalProperties"); it != schema.end()) {
        if (*it == json(false)) {
            if (!allowed) {
                allowed = own_names;
            } else {
                std::erase_if(*allowed,
                              [&own_names](const auto& name) { return !own_names.contains(name); });
            }
        } else {
            shape.additional = &*it;
        }
    }
}

}  // namespace ipybox::codegen::detail
