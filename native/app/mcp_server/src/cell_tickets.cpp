#include "cell_tickets.hpp"

#include "ipybox/core/base64.hpp"
#include "ipybox/core/hmac.hpp"
#include "ipybox/core/sha256.hpp"

namespace ipybox::app {
namespace {

using nlohmann::json;

constexpr std::string_view prefix = "v1.";
constexpr std::size_t max_state_size = 4096;

}  // namespace

std::string seal_ticket(std::string_view key, const cell_ticket& ticket) {
    const json payload{
        {"k", ticket.kernel}, {"c", ticket.cell}, {"a", ticket.arguments}, {"e", ticket.expires}};
    const auto body = core::base64_encode(payload.dump());
    return std::string(prefix) + body + "." + core::hmac_sha256_hex(key, {prefix, body});
}

cell_ticket open_ticket(std::string_view key, std::string_view state, std::string_view kernel,
                        std::string_view arguments, std::int64_t now) {
    const ticket_refused forged(
        "the requestState is not one ipybox made (malformed or altered); call the tool again "
        "without it");
    if (state.size() > max_state_size || !state.starts_with(prefix)) throw forged;
    const auto rest = state.substr(prefix.size());
    const auto dot = rest.rfind('.');
    if (dot == std::string_view::npos) throw forged;
    const auto body = rest.substr(0, dot);
    if (!core::equal_tags(rest.substr(dot + 1), core::hmac_sha256_hex(key, {prefix, body}))) {
        throw forged;
    }
    // Authentic from here on: what follows was written by seal_ticket().
    const auto text = core::base64_decode(body);
    if (!text) throw forged;
    const auto payload = json::parse(*text, nullptr, false);
    if (!payload.is_object()) throw forged;
    cell_ticket ticket{payload.value("k", ""), payload.value("c", ""), payload.value("a", ""),
                       payload.value("e", std::int64_t{0})};
    if (ticket.kernel != kernel) {
        throw ticket_refused("the requestState belongs to another kernel");
    }
    if (ticket.arguments != arguments) {
        throw ticket_refused(
            "the requestState was made for another call: retry with the same arguments");
    }
    if (now >= ticket.expires) {
        throw ticket_refused(
            "the requestState has expired: the cell stopped waiting for the "
            "answer");
    }
    return ticket;
}

std::string arguments_digest(const json& arguments) {
    auto call = arguments.is_object() ? arguments : json::object();
    call.erase("kernel_id");
    return core::sha256_hex(call.dump());
}

}  // namespace ipybox::app
