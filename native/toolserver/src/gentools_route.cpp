#include <algorithm>
#include <memory>
#include <variant>

#include "detail/route_helpers.hpp"
#include "ipybox/core/python_names.hpp"
#include "ipybox/toolserver/library_writer.hpp"
#include "ipybox/toolserver/routes.hpp"

namespace ipybox::toolserver {
namespace {

using nlohmann::json;

// The request as a gentool_save, or the text saying what is wrong with its JSON shape.
std::variant<gentool_save, std::string> read_save(const json& body) {
    gentool_save save;
    if (!body.contains("category") || !body["category"].is_string() || !body.contains("name") ||
        !body["name"].is_string()) {
        return std::string("the body needs string fields category and name");
    }
    save.category = body["category"].get<std::string>();
    save.name = body["name"].get<std::string>();
    const auto files = body.value("files", json());
    if (!files.is_object()) return std::string("files must be an object of file name -> text");
    for (const auto& [file_name, text] : files.items()) {
        if (!text.is_string()) return "the file " + file_name + " must be text";
        save.files[file_name] = text.get<std::string>();
    }
    if (body.contains("category_init") && !body["category_init"].is_null()) {
        if (!body["category_init"].is_string()) return std::string("category_init must be text");
        save.category_init = body["category_init"].get<std::string>();
    }
    const auto overwrite = body.value("overwrite", json(false));
    if (!overwrite.is_boolean()) return std::string("overwrite must be true or false");
    save.overwrite = overwrite.get<bool>();
    return save;
}

}  // namespace

std::string gentool_name_problem(std::string_view value) {
    if (value.empty()) return "it is empty";
    if (value.size() > max_gentool_name_length) {
        return "it is longer than " + std::to_string(max_gentool_name_length) + " characters";
    }
    if (!core::is_public_identifier(value)) {
        return "it is not an ASCII Python identifier starting with a letter (letters, digits, _)";
    }
    if (core::is_python_keyword(value)) return "it is a Python keyword";
    return {};
}

std::string gentool_save_problem(const gentool_save& request) {
    for (const auto& [kind, value] :
         {std::pair{"category", &request.category}, std::pair{"name", &request.name}}) {
        if (auto problem = gentool_name_problem(*value); !problem.empty()) {
            return std::string("invalid gentools ") + kind + " '" + value->substr(0, 80) +
                   "': " + problem;
        }
    }
    for (const auto* expected : gentool_file_names) {
        if (!request.files.count(expected))
            return std::string("the file ") + expected + " is missing";
    }
    for (const auto& [file_name, text] : request.files) {
        const auto* end = std::end(gentool_file_names);
        if (std::find(std::begin(gentool_file_names), end, file_name) == end) {
            return "an action has only the files __init__.py, api.py and impl.py, not '" +
                   file_name.substr(0, 80) + "'";
        }
        if (text.size() > max_gentool_file_bytes) {
            return "the file " + file_name + " is larger than " +
                   std::to_string(max_gentool_file_bytes / 1024) + " KiB";
        }
    }
    if (request.category_init && request.category_init->size() > max_gentool_file_bytes) {
        return "category_init is larger than " + std::to_string(max_gentool_file_bytes / 1024) +
               " KiB";
    }
    return {};
}

void handle_gentools(http_request request, const route_context& context, responder done) {
    if (!context.library) {
        return done(detail::error_response(
            404, error_type::bad_request,
            "this ipybox session does not save to the user library on the kernel's behalf "
            "(the kernel may write it itself)"));
    }
    auto parsed = detail::parse_object(request.body, context.json_limits);
    request = {};
    if (auto* response = std::get_if<http_response>(&parsed)) return done(std::move(*response));
    auto read = read_save(std::get<json>(parsed));
    if (auto* problem = std::get_if<std::string>(&read)) {
        return done(detail::error_response(400, error_type::bad_request, *problem));
    }
    // The approver sees every file that may be written, the category's __init__.py included,
    // and the writer gets exactly what was approved.
    auto save = std::make_shared<const approval::request>(std::get<gentool_save>(std::move(read)));
    if (auto problem = gentool_save_problem(std::get<gentool_save>(*save)); !problem.empty()) {
        return done(detail::error_response(400, error_type::bad_request, problem));
    }
    context.gate.decide(
        *save, [&context, save, done = std::move(done)](const approval::decision& decision) {
            if (auto refused = detail::refusal(detail::subject_of(*save), decision)) {
                return done(std::move(*refused));
            }
            gentool_save_outcome outcome;
            try {
                outcome = context.library->save(std::get<gentool_save>(*save));
            } catch (const std::exception& e) {
                outcome = gentool_save_outcome::failure(error_type::server_error, e.what());
            }
            if (outcome.package) {
                return done(detail::json_response({{"package", outcome.package->string()}}));
            }
            done(detail::error_response(200, outcome.error_type.c_str(), outcome.error_message));
        });
}

}  // namespace ipybox::toolserver
