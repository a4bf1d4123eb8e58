// Names derived from server-supplied text: server names, module names, class and attribute names.
#include "ipybox/codegen/naming.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ipybox/codegen/detail/identifiers.hpp"
#include "ipybox/core/python_names.hpp"

using namespace ipybox::codegen;
using namespace ipybox::codegen::detail;

namespace {

std::string refusal(std::string_view name) {
    try {
        validate_server_name(name);
    } catch (const invalid_server_name& error) {
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("accepts ASCII identifiers as server names") {
    for (const char* name : {"github", "my_server2", "A", "fetch_v2", "match", "x"}) {
        CHECK_NOTHROW(validate_server_name(name));
    }
}

TEST_CASE(
    "refuses server names that could leave mcptools/ or are not importable, naming the rule") {
    CHECK(refusal("").find("empty") != std::string::npos);
    CHECK(refusal("..").find("identifier") != std::string::npos);
    CHECK(refusal("a/b").find("'/'") != std::string::npos);
    CHECK(refusal("/home/u/x").find("identifier") != std::string::npos);
    CHECK(refusal("my-server").find("identifier") != std::string::npos);
    CHECK(refusal("2fa").find("digit") != std::string::npos);
    CHECK(refusal("class").find("keyword") != std::string::npos);
    CHECK(refusal("None").find("keyword") != std::string::npos);
    CHECK(refusal("_private").find("'_'") != std::string::npos);
    CHECK(refusal("__pycache__").find("'_'") != std::string::npos);
    CHECK(refusal("s\xc3\xa9rver").find("ASCII") != std::string::npos);
    CHECK(refusal(std::string(max_server_name_length + 1, 'a')).find("longer") !=
          std::string::npos);
    CHECK_NOTHROW(validate_server_name(std::string(max_server_name_length, 'a')));
}

TEST_CASE("quotes a refused server name as an escaped literal in the message") {
    const auto message = refusal("x\n__import__('os')");
    CHECK(message.find('\n') == std::string::npos);
    CHECK(message.find("\\n__import__") != std::string::npos);
}

TEST_CASE("sanitises tool names like the reference (hyphens, dots, case, symbols)") {
    CHECK(sanitize_module_name("tool-1") == "tool_1");
    CHECK(sanitize_module_name("MyTool") == "mytool");
    CHECK(sanitize_module_name("tool@name!v2") == "tool_name_v2");
    CHECK(sanitize_module_name("tool.name") == "tool_name");
    CHECK(sanitize_module_name("already_valid") == "already_valid");
}

TEST_CASE("sanitised module names are always importable and never __init__") {
    CHECK(sanitize_module_name("__init__") == "init");
    CHECK(sanitize_module_name("__INIT__") == "init");
    CHECK(sanitize_module_name("_private") == "private");
    CHECK(sanitize_module_name("class") == "class_");
    CHECK(sanitize_module_name("import") == "import_");
    CHECK(sanitize_module_name("2fa") == "tool_2fa");
    CHECK(sanitize_module_name("") == "tool");
    CHECK(sanitize_module_name("___") == "tool");
    CHECK(sanitize_module_name("\xc3\xbcn\xc3\xaf"
                               "code") == "n_code");  // one `_` per code point
    CHECK(sanitize_module_name(std::string(300, 'x')).size() == max_module_name_length);
    for (const char* name : {"a b", "\"\"\"", "x'\n__import__('os')", "..", "/"}) {
        CHECK(ipybox::core::is_ascii_identifier(sanitize_module_name(name)));
        CHECK_FALSE(ipybox::core::is_python_keyword(sanitize_module_name(name)));
    }
}

TEST_CASE("resolves module name collisions with _2, _3 in server order, exact names first") {
    const std::vector<std::string> tools{"a-b", "a_b",      "A.B",     "a_b_2",
                                         "a_b", "__init__", "__INIT__"};
    const std::vector<std::string> expected{"a_b_3", "a_b",  "a_b_4", "a_b_2",
                                            "a_b_5", "init", "init_2"};
    CHECK(assign_module_names(tools) == expected);
    CHECK(assign_module_names(tools) == assign_module_names(tools));
}

TEST_CASE("builds PascalCase class names and singular item names") {
    CHECK(pascal_case("inner result-v2") == "InnerResultV2");
    CHECK(pascal_case("my_field") == "MyField");
    CHECK(pascal_case("InnerResult") == "InnerResult");
    CHECK(pascal_case("\xc3\xa4\xc3\xb6") == "");
    CHECK(class_name_from("2fa", "Model") == "Model2fa");
    CHECK(class_name_from("", "Choice") == "Choice");
    CHECK(singular("Items") == "Item");
    CHECK(singular("Repositories") == "Repository");
    CHECK(singular("Boxes") == "Box");
    CHECK(singular("Status") == "Status");
    CHECK(singular("Address") == "Address");
}

TEST_CASE("sanitises property names into attributes that pydantic and Python accept") {
    const auto& reserved = reserved_attribute_names();
    CHECK(attribute_base_name("my-field", reserved) == "my_field");
    CHECK(attribute_base_name("from", reserved) == "from_");
    CHECK(attribute_base_name("2fa", reserved) == "field_2fa");
    CHECK(attribute_base_name("_private", reserved) == "private");
    CHECK(attribute_base_name("", reserved) == "field");
    CHECK(attribute_base_name("json", reserved) == "json_");
    CHECK(attribute_base_name("model_config", reserved) == "model_config_");
    CHECK(attribute_base_name("Field", reserved) == "Field_");
    CHECK(attribute_base_name("str", reserved) == "str_");
    CHECK(attribute_base_name("perPage", reserved) == "perPage");
    CHECK(attribute_base_name("model_name", reserved) == "model_name");
}

TEST_CASE("sanitises enum member names away from names Enum reserves") {
    CHECK(enum_member_base_name("help-wanted-issues") == "help_wanted_issues");
    CHECK(enum_member_base_name("class") == "class_");
    CHECK(enum_member_base_name("123abc") == "value_123abc");
    CHECK(enum_member_base_name("") == "value_");
    CHECK(enum_member_base_name("mro") == "mro_");
    CHECK(enum_member_base_name("_missing_") == "missing_");
}

TEST_CASE("unique names keep exact matches first and number the rest") {
    CHECK(assign_unique({"x", "x", "x"}, {"x-", "x", "x."}, {}, "_") ==
          std::vector<std::string>{"x_2", "x", "x_3"});
    CHECK(assign_unique({"Params"}, {"Params"}, {"Params"}, "_") ==
          std::vector<std::string>{"Params_2"});
    name_registry registry({"Params"});
    CHECK(registry.claim("Item") == "Item");
    CHECK(registry.claim("Item") == "Item2");
    CHECK(registry.claim("Params") == "Params2");
}
