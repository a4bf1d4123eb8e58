// POST /dependencies: what a saved code action needs, added by the host once approved.
#include <memory>
#include <variant>

#include "detail/route_helpers.hpp"
#include "ipybox/toolserver/dependency_adder.hpp"
#include "ipybox/toolserver/library_writer.hpp"
#include "ipybox/toolserver/routes.hpp"

namespace ipybox::toolserver {
namespace {

using nlohmann::json;

// The request, or the text saying what is wrong with its JSON shape.
std::variant<approval::add_dependencies, std::string> read_dependencies(json& body) {
    approval::add_dependencies needs;
    const auto action = body.value("action", json());
    if (!action.is_string()) return std::string("the body needs a string field action");
    needs.action = action.get<std::string>();
    const auto servers = body.value("servers", json::object());
    if (!servers.is_object()) return std::string("servers must be an object of name -> params");
    for (const auto& [name, params] : servers.items()) needs.servers[name] = params;
    const auto packages = body.value("packages", json::array());
    if (!packages.is_array()) return std::string("packages must be a list");
    for (const auto& package : packages) {
        if (!package.is_object() || !package.value("spec", json()).is_string() ||
            !package.value("for_user", json(false)).is_boolean()) {
            return std::string("each package must be {\"spec\": str, \"for_user\": bool}");
        }
        needs.packages.push_back(
            {package["spec"].get<std::string>(), package.value("for_user", false)});
    }
    return needs;
}

}  // namespace

std::string dependencies_problem(const approval::add_dependencies& what) {
    if (what.servers.empty() && what.packages.empty()) return "there is nothing to add";
    if (what.action.size() > 200) return "the action's name is longer than 200 bytes";
    if (what.servers.size() > max_dependency_servers) {
        return "more than " + std::to_string(max_dependency_servers) + " servers";
    }
    if (what.packages.size() > max_dependency_packages) {
        return "more than " + std::to_string(max_dependency_packages) + " packages";
    }
    for (const auto& [name, params] : what.servers) {
        if (name == approval::reserved_server_name) return "the server name ipybox is reserved";
        // The rule of gentools names, which is codegen's for server names too (an ASCII
        // identifier, no keyword, no leading underscore).
        if (auto problem = gentool_name_problem(name); !problem.empty()) {
            return "invalid server name '" + name.substr(0, 80) + "': " + problem;
        }
        if (!params.is_object()) return "the parameters of " + name + " must be an object";
    }
    for (const auto& package : what.packages) {
        const auto& spec = package.spec;
        if (spec.empty()) return "a package spec is empty";
        if (spec.size() > max_package_spec_bytes) return "a package spec is longer than 4096 bytes";
        if (spec.front() == '-') return "a package spec may not be a pip option";
        if (spec.find_first_of("\r\n") != std::string::npos) {
            return "a package spec may not hold a line break";
        }
    }
    return {};
}

void handle_dependencies(http_request request, const route_context& context, responder done) {
    if (!context.dependencies) {
        return done(detail::error_response(
            404, error_type::bad_request,
            "this ipybox session does not add dependencies on the kernel's behalf; call "
            "register_mcp_server and install_package instead"));
    }
    auto parsed = detail::parse_object(request.body, context.json_limits);
    request = {};
    if (auto* response = std::get_if<http_response>(&parsed)) return done(std::move(*response));
    auto read = read_dependencies(std::get<json>(parsed));
    if (auto* problem = std::get_if<std::string>(&read)) {
        return done(detail::error_response(400, error_type::bad_request, *problem));
    }
    auto& asked = std::get<approval::add_dependencies>(read);
    if (auto problem = dependencies_problem(asked); !problem.empty()) {
        return done(detail::error_response(400, error_type::bad_request, problem));
    }
    std::string not_granted;
    try {
        not_granted = context.dependencies->refusal(asked);
        if (not_granted.empty()) context.dependencies->annotate(asked);
    } catch (const std::exception& e) {
        not_granted = std::string("cannot tell what this project has registered: ") + e.what();
    }
    if (!not_granted.empty()) {
        return done(detail::error_response(409, error_type::bad_request, not_granted));
    }
    auto needs = std::make_shared<const approval::request>(std::move(asked));
    // The adder gets exactly what the person approved.
    context.gate.decide(*needs, [&context, needs,
                                 done = std::move(done)](const approval::decision& decision) {
        if (auto refused = detail::refusal(detail::subject_of(*needs), decision)) {
            return done(std::move(*refused));
        }
        auto answer = std::make_shared<detail::once_responder>(done);
        try {
            context.dependencies->add(
                std::get<approval::add_dependencies>(*needs), [answer](dependency_outcome outcome) {
                    if (outcome.added) {
                        return answer->send(detail::json_response({{"report", outcome.report}}));
                    }
                    answer->send(
                        detail::error_response(200, error_type::server_error, outcome.report));
                });
        } catch (const std::exception& e) {
            answer->send(detail::error_response(200, error_type::server_error, e.what()));
        }
    });
}

}  // namespace ipybox::toolserver
