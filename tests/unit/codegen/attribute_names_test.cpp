// model_attribute_names, the one naming function of model attributes (issue 36): injective on
// any set of property names, plain names kept, nothing mangled onto a property name, a reserved
// name, a keyword, a private name or a non-ASCII one (NFKC cannot fold two attributes into one).
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ipybox/codegen/detail/identifiers.hpp"
#include "ipybox/codegen/detail/ir_builder.hpp"
#include "ipybox/core/python_names.hpp"
#include "ir_lookup.hpp"

using namespace ipybox::codegen;
using namespace ipybox::codegen::detail;
using ipybox::codegen::testing::field;
using ipybox::codegen::testing::model;
using nlohmann::json;

namespace {

// Stems and the variants a mangler sends onto each other (the fuzz tier's name_sets.py draws
// from the same classes; here they are fixed so that a failure names its set).
const std::vector<std::string> stems = {
    "class",       "from",      "None",     "match",
    "type",        "_",         "__init__", "__dict__",
    "_private",    "__",        "copy",     "dict",
    "json",        "schema",    "fields",   "model_config",
    "model_dump",  "validate",  "Config",   "mro",
    "datetime",    "int",       "Field",    "Optional",
    "Constraints", "Annotated", "Params",   "file",
    "a b",         "",          "2fa",      "\xef\xac\x81le" /* U+FB01 ligature fi, then "le" */,
    "na\xc3\xafve"};

std::vector<std::string> variants(const std::string& stem) {
    std::vector<std::string> found = {stem,         stem + "_",     stem + "__", stem + "_2",
                                      stem + "__2", stem + "__3",   "_" + stem,  "__" + stem + "__",
                                      stem + " ",   "field_" + stem};
    std::string upper = stem;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    found.push_back(upper);
    return found;
}

void check_injective(const std::vector<std::string>& properties,
                     const std::set<std::string>& reserved) {
    const auto names = model_attribute_names(properties, reserved);
    REQUIRE(names.size() == properties.size());
    const std::set<std::string> property_set(properties.begin(), properties.end());
    std::set<std::string> seen;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto& name = names[i];
        INFO("property '" << properties[i] << "' -> '" << name << "'");
        CHECK(seen.insert(name).second);
        CHECK(ipybox::core::is_public_identifier(name));
        CHECK_FALSE(ipybox::core::is_python_keyword(name));
        CHECK_FALSE(reserved.contains(name));
        // Never the name of another property: a key of the model's JSON is never ambiguous.
        CHECK((name == properties[i] || !property_set.contains(name)));
        if (is_plain_attribute(properties[i], reserved)) CHECK(name == properties[i]);
    }
}

}  // namespace

TEST_CASE("model attribute names are injective on random hostile name sets") {
    std::mt19937 random(36);
    const auto& reserved = reserved_attribute_names();
    for (int round = 0; round < 2000; ++round) {
        std::set<std::string> chosen;
        const int families = 1 + static_cast<int>(random() % 3);
        for (int f = 0; f < families; ++f) {
            const auto family = variants(stems[random() % stems.size()]);
            const int take = 1 + static_cast<int>(random() % 6);
            for (int t = 0; t < take; ++t) chosen.insert(family[random() % family.size()]);
        }
        std::vector<std::string> properties(chosen.begin(), chosen.end());
        std::shuffle(properties.begin(), properties.end(), random);
        check_injective(properties, reserved);
    }
}

TEST_CASE("model attribute names depend on the set of names, not on their order") {
    std::vector<std::string> properties = {"class", "class_", "class__2", "_class", "CLASS_"};
    const auto names = model_attribute_names(properties, reserved_attribute_names());
    std::vector<std::string> reversed(properties.rbegin(), properties.rend());
    auto names_reversed = model_attribute_names(reversed, reserved_attribute_names());
    std::reverse(names_reversed.begin(), names_reversed.end());
    CHECK(names == names_reversed);
}

TEST_CASE("a name that needs no change keeps it, whatever else the model holds") {
    const auto names =
        model_attribute_names({"class", "class_", "datetime", "datetime_", "__init__", "init__"},
                              reserved_attribute_names());
    CHECK(names == std::vector<std::string>{"class__2", "class_", "datetime__2", "datetime_",
                                            "init___2", "init__"});
}

TEST_CASE("non-ASCII names become ASCII attributes, folded as NFKC folds them") {
    // U+FB01 (fi), fullwidth c l a s s, U+017F (long s), U+212A (Kelvin sign).
    const std::string ligature_file = "\xef\xac\x81le";
    const std::string fullwidth_class =
        "\xef\xbd\x83\xef\xbd\x8c\xef\xbd\x81\xef\xbd\x93\xef\xbd\x93";
    const std::string long_s_class =
        "cla\xc5\xbf"
        "s";
    const std::string kelvin = "\xe2\x84\xaa";
    const auto names = model_attribute_names(
        {"file", ligature_file, fullwidth_class, long_s_class, "class", kelvin, "K"},
        reserved_attribute_names());
    CHECK(names ==
          std::vector<std::string>{"file", "file_2", "class__3", "class__2", "class_", "K_2", "K"});
    CHECK(nfkc_ascii(0xFB01) == "fi");
    CHECK(nfkc_ascii(0xFF43) == "c");
    CHECK(nfkc_ascii(0x212A) == "K");
    CHECK(nfkc_ascii(0x00E9).empty());  // é stays é under NFKC: not ASCII
    CHECK(attribute_base_name("na\xc3\xafve", {}) == "na_ve");
}

TEST_CASE("names the class body evaluates are neither fields nor classes") {
    for (const auto& name : {"Constraints", "Annotated", "Optional", "Field", "Literal"}) {
        CHECK(reserved_attribute_names().contains(name));
        CHECK(reserved_class_names().contains(name));
    }
    tool_descriptor tool;
    tool.name = "t";
    tool.input_schema = {
        {"type", "object"},
        {"properties",
         {{"Constraints", {{"enum", {"a", "b"}}}},
          {"Annotated", {{"type", "object"}, {"properties", {{"x", {{"type", "integer"}}}}}}},
          {"n", {{"type", "array"}, {"items", {{"type", "integer"}, {"maximum", 3}}}}}}}};
    const auto module = build_module_ir(tool);
    for (const auto& item : module.classes) {
        std::visit(
            [](const auto& def) { CHECK_FALSE(class_body_names().contains(def.class_name)); },
            item);
    }
    const auto& params = model(module, "Params");
    CHECK(field(params, "Constraints").attribute_name == "Constraints_");
    CHECK(field(params, "Annotated").attribute_name == "Annotated_");
}
