// What the entries of server_tool_table.cpp turn into: the input schema, the argument check and
// the README row.
#include <algorithm>
#include <cmath>

#include "server_tool_support.hpp"
#include "server_tool_table.hpp"

namespace ipybox::app {
namespace {

using detail::argument_error;
using nlohmann::json;

const char* json_type_of(parameter_type type) {
    switch (type) {
        case parameter_type::string:
            return "string";
        case parameter_type::number:
            return "number";
        case parameter_type::integer:
            return "integer";
        case parameter_type::boolean:
            return "boolean";
        case parameter_type::object:
            return "object";
    }
    return "string";
}

// A bound as the schema, the docs and messages write it: 1, not 1.0.
json number_json(double value) {
    if (std::floor(value) == value && std::abs(value) < 1e15) {
        return static_cast<long long>(value);
    }
    return value;
}

std::string number_text(double value) {
    return number_json(value).dump();
}

std::string choices_text(const std::vector<std::string>& choices) {
    std::string text;
    for (std::size_t i = 0; i < choices.size(); ++i) {
        if (i > 0) text += i + 1 == choices.size() ? " or " : ", ";
        text += json(choices[i]).dump();
    }
    return text;
}

std::string expectation(const tool_parameter& parameter) {
    if (!parameter.expected.empty()) return parameter.expected;
    const bool integer = parameter.type == parameter_type::integer;
    switch (parameter.type) {
        case parameter_type::string:
            return parameter.choices.empty() ? "a string" : choices_text(parameter.choices);
        case parameter_type::object:
            return "an object";
        case parameter_type::boolean:
            return "true or false";
        case parameter_type::number:
        case parameter_type::integer:
            break;
    }
    std::string text = integer ? "an integer" : "a number";
    if (parameter.minimum && parameter.maximum) {
        text +=
            " from " + number_text(*parameter.minimum) + " to " + number_text(*parameter.maximum);
    } else if (parameter.minimum) {
        text += " of at least " + number_text(*parameter.minimum);
    } else if (parameter.exclusive_minimum) {
        text += " above " + number_text(*parameter.exclusive_minimum);
    } else if (parameter.maximum) {
        text += " of at most " + number_text(*parameter.maximum);
    }
    return text;
}

bool within_bounds(const tool_parameter& parameter, double value) {
    if (!std::isfinite(value)) return false;
    if (parameter.type == parameter_type::integer && std::floor(value) != value) return false;
    if (parameter.minimum && value < *parameter.minimum) return false;
    if (parameter.exclusive_minimum && value <= *parameter.exclusive_minimum) return false;
    if (parameter.maximum && value > *parameter.maximum) return false;
    return true;
}

void check_value(const tool_parameter& parameter, const json& value) {
    const auto refuse = [&parameter]() {
        throw argument_error("\"" + parameter.name + "\" must be " + expectation(parameter));
    };
    switch (parameter.type) {
        case parameter_type::string:
            if (!value.is_string()) {
                throw argument_error("argument \"" + parameter.name + "\" must be a string, not " +
                                     value.type_name());
            }
            if (!parameter.choices.empty() &&
                std::find(parameter.choices.begin(), parameter.choices.end(),
                          value.get_ref<const std::string&>()) == parameter.choices.end()) {
                throw argument_error("\"" + parameter.name + "\" must be " +
                                     expectation(parameter) + ", not " + value.dump());
            }
            return;
        case parameter_type::object:
            if (!value.is_object()) refuse();
            return;
        case parameter_type::boolean:
            if (!value.is_boolean()) refuse();
            return;
        case parameter_type::number:
        case parameter_type::integer:
            if (!value.is_number() || !within_bounds(parameter, value.get<double>())) refuse();
            return;
    }
}

}  // namespace

mcp::session::tool_descriptor descriptor_of(const server_tool& tool) {
    json properties = json::object();
    json required = json::array();
    for (const auto& parameter : tool.parameters) {
        json property{{"type", json_type_of(parameter.type)},
                      {"description", parameter.description}};
        if (!parameter.default_value.is_null()) property["default"] = parameter.default_value;
        if (!parameter.choices.empty()) property["enum"] = parameter.choices;
        if (parameter.minimum) property["minimum"] = number_json(*parameter.minimum);
        if (parameter.exclusive_minimum)
            property["exclusiveMinimum"] = number_json(*parameter.exclusive_minimum);
        if (parameter.maximum) property["maximum"] = number_json(*parameter.maximum);
        if (parameter.type == parameter_type::object) property["additionalProperties"] = true;
        properties[parameter.name] = std::move(property);
        if (parameter.required) required.push_back(parameter.name);
    }
    mcp::session::tool_descriptor descriptor;
    descriptor.name = tool.name;
    descriptor.title = tool.title;
    descriptor.description = tool.description;
    descriptor.input_schema = json{{"type", "object"}, {"properties", std::move(properties)}};
    if (!required.empty()) descriptor.input_schema["required"] = std::move(required);
    descriptor.annotations = tool.annotations;
    descriptor.annotations["title"] = tool.title;
    return descriptor;
}

json checked_arguments(const server_tool& tool, const json& arguments) {
    json checked = json::object();
    for (const auto& parameter : tool.parameters) {
        const bool given = arguments.is_object() && arguments.contains(parameter.name) &&
                           !arguments[parameter.name].is_null();
        if (!given) {
            if (parameter.required) {
                throw argument_error("missing required argument \"" + parameter.name + "\"");
            }
            checked[parameter.name] = parameter.default_value;
            continue;
        }
        const auto& value = arguments[parameter.name];
        check_value(parameter, value);
        checked[parameter.name] = value;
    }
    return checked;
}

std::string docs_row(const server_tool& tool) {
    std::string signature;
    for (const auto& parameter : tool.parameters) {
        if (!signature.empty()) signature += ", ";
        signature += parameter.name;
        if (!parameter.required) signature += "=" + parameter.default_value.dump();
    }
    return "| `" + tool.name + "(" + signature + ")` | " + tool.docs + " |";
}

}  // namespace ipybox::app
