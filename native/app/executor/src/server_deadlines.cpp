#include "server_deadlines.hpp"

#include <cmath>
#include <stdexcept>

namespace ipybox::app {

server_deadlines deadlines_for(const nlohmann::json& server_params,
                               const server_deadlines& defaults) {
    auto deadlines = defaults;
    if (!server_params.is_object() || !server_params.contains("timeouts")) return deadlines;
    const auto& timeouts = server_params["timeouts"];
    if (!timeouts.is_object()) {
        throw std::invalid_argument(
            "server parameter \"timeouts\" must be an object of seconds, e.g. {\"call\": 600}");
    }
    const std::pair<const char*, std::chrono::milliseconds*> fields[] = {
        {"connect", &deadlines.connect},
        {"request", &deadlines.request},
        {"call", &deadlines.call},
        {"max_list", &deadlines.max_list},
        {"max_request", &deadlines.max_request},
        {"max_call", &deadlines.max_call},
        {"close", &deadlines.close}};
    for (const auto& [key, value] : timeouts.items()) {
        std::chrono::milliseconds* target = nullptr;
        for (const auto& [name, field] : fields) {
            if (key == name) target = field;
        }
        if (target == nullptr) {
            throw std::invalid_argument(
                "server parameter \"timeouts\" has the unknown key \"" + key.substr(0, 40) +
                "\" (known: connect, request, call, max_list, max_request, max_call, close)");
        }
        constexpr double week = 7 * 24 * 3600;
        if (!value.is_number() || !(value.get<double>() > 0) || value.get<double>() > week) {
            throw std::invalid_argument("server parameter \"timeouts." + key +
                                        "\" must be a positive number of seconds, at most a week");
        }
        // At least 1 ms: zero would mean "no limit" further down.
        *target = std::chrono::milliseconds(
            std::max<long long>(1, std::llround(value.get<double>() * 1000)));
    }
    return deadlines;
}

}  // namespace ipybox::app
