#include "ipybox/gentools/server_registry.hpp"

#include <sys/stat.h>

#include <fstream>

#include "ipybox/core/json_decode.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/core/random.hpp"
#include "ipybox/workspace/bounded_read.hpp"

namespace ipybox::app {

server_registry::server_registry(std::filesystem::path file) : file_(std::move(file)) {}

nlohmann::json server_registry::load_document() const {
    if (file_.empty()) return nlohmann::json::object();
    try {
        // ipybox replaces this file by renaming, so a link or a FIFO here is not its own.
        const auto text = workspace::read_regular_file(file_, workspace::max_settings_file_bytes);
        if (!text) return nlohmann::json::object();
        auto document = core::decode_json(*text);
        if (document.is_object()) return document;
        throw std::runtime_error("not a JSON object");
    } catch (const std::exception& e) {
        core::logger("app")->warn("ignoring the server registry {}: {}", file_.string(), e.what());
    }
    return nlohmann::json::object();
}

void server_registry::write_document(const nlohmann::json& document) {
    try {
        std::filesystem::create_directories(file_.parent_path());
        const auto temporary = file_.string() + ".tmp-" + core::random_hex(4);
        {
            std::ofstream out(temporary);
            out << document.dump(2) << "\n";
            if (!out) throw std::runtime_error("cannot write " + temporary);
        }
        ::chmod(temporary.c_str(), 0600);
        std::filesystem::rename(temporary, file_);
    } catch (const std::exception& e) {
        core::logger("app")->warn("cannot update the server registry {}: {}", file_.string(),
                                  e.what());
    }
}

std::map<std::string, nlohmann::json> server_registry::load() const {
    std::lock_guard lock(mutex_);
    std::map<std::string, nlohmann::json> servers;
    const auto document = load_document();
    try {
        if (document.contains("servers")) {
            for (const auto& [name, params] : document.at("servers").items()) {
                servers[name] = params;
            }
        }
    } catch (const std::exception& e) {
        core::logger("app")->warn("ignoring the server registry {}: {}", file_.string(), e.what());
    }
    return servers;
}

void server_registry::remember(const std::string& name, const nlohmann::json& params) {
    if (file_.empty()) return;
    std::lock_guard lock(mutex_);
    auto document = load_document();
    if (!document["servers"].is_object()) document["servers"] = nlohmann::json::object();
    document["servers"][name] = params;
    write_document(document);
}

nlohmann::json server_registry::load_pins() const {
    std::lock_guard lock(mutex_);
    const auto document = load_document();
    const auto pins = document.value("pins", nlohmann::json::object());
    return pins.is_object() ? pins : nlohmann::json::object();
}

void server_registry::save_pins(const nlohmann::json& pins) {
    if (file_.empty()) return;
    std::lock_guard lock(mutex_);
    auto document = load_document();
    document["pins"] = pins;
    write_document(document);
}

}  // namespace ipybox::app
