#include "server_registry.hpp"

#include <sys/stat.h>

#include <fstream>

#include "ipybox/core/log.hpp"
#include "ipybox/core/random.hpp"

namespace ipybox::app {

server_registry::server_registry(std::filesystem::path file) : file_(std::move(file)) {}

std::map<std::string, nlohmann::json> server_registry::load() const {
    std::lock_guard lock(mutex_);
    std::map<std::string, nlohmann::json> servers;
    if (file_.empty() || !std::filesystem::exists(file_)) return servers;
    try {
        std::ifstream in(file_);
        const auto document = nlohmann::json::parse(in);
        for (const auto& [name, params] : document.at("servers").items()) servers[name] = params;
    } catch (const std::exception& e) {
        core::logger("app")->warn("ignoring the server registry {}: {}", file_.string(), e.what());
    }
    return servers;
}

void server_registry::remember(const std::string& name, const nlohmann::json& params) {
    if (file_.empty()) return;
    auto servers = load();
    servers[name] = params;
    std::lock_guard lock(mutex_);
    try {
        std::filesystem::create_directories(file_.parent_path());
        const auto temporary = file_.string() + ".tmp-" + core::random_hex(4);
        {
            std::ofstream out(temporary);
            out << nlohmann::json{{"servers", servers}}.dump(2) << "\n";
            if (!out) throw std::runtime_error("cannot write " + temporary);
        }
        ::chmod(temporary.c_str(), 0600);
        std::filesystem::rename(temporary, file_);
    } catch (const std::exception& e) {
        core::logger("app")->warn("cannot update the server registry {}: {}", file_.string(),
                                  e.what());
    }
}

}  // namespace ipybox::app
