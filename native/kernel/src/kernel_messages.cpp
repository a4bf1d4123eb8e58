#include "kernel_messages.hpp"

namespace ipybox::kernel::detail {

std::optional<long long> timestamp_of(const nlohmann::json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string()) return std::nullopt;
    return jupyter::parse_timestamp_micros(it->get<std::string>());
}

kernel_event to_event(jupyter::message&& msg) {
    const auto type = msg.msg_type();
    auto& c = msg.content;
    if (type == "stream") {
        stream_output out{c.value("name", "stdout"), {}, {}, 0};
        if (const auto text = c.find("text"); text != c.end() && text->is_string()) {
            out.text = std::move(text->get_ref<std::string&>());
        }
        return out;
    }
    if (type == "display_data" || type == "execute_result") {
        // Only what the output collector reads is kept: the other types of a bundle (HTML,
        // JPEG, widget state) would wait in the queue for nothing.
        auto kept = nlohmann::json::object();
        if (const auto data = c.find("data"); data != c.end() && data->is_object()) {
            for (const char* mime : {"image/png", "text/plain"}) {
                if (const auto it = data->find(mime); it != data->end()) {
                    kept[mime] = std::move(*it);
                }
            }
        }
        return display_output{std::move(kept), type == "execute_result"};
    }
    error_output error{c.value("ename", "Error"), c.value("evalue", ""), {}};
    if (const auto tb = c.find("traceback"); tb != c.end() && tb->is_array()) {
        for (const auto& line : *tb) {
            if (line.is_string()) error.traceback.push_back(line.get<std::string>());
        }
    }
    return error;
}

}  // namespace ipybox::kernel::detail
