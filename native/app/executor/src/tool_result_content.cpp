#include "tool_result_content.hpp"

#include <array>
#include <string_view>
#include <utility>

#include "ipybox/core/base64.hpp"
#include "ipybox/core/random.hpp"
#include "ipybox/workspace/directory.hpp"

namespace ipybox::app {
namespace {

using nlohmann::json;

// File name extensions by MIME type; the server's own names (URIs) are never used for files.
constexpr std::array<std::pair<std::string_view, std::string_view>, 22> extensions{{
    {"image/png", ".png"},       {"image/jpeg", ".jpg"},
    {"image/gif", ".gif"},       {"image/webp", ".webp"},
    {"image/svg+xml", ".svg"},   {"image/bmp", ".bmp"},
    {"audio/wav", ".wav"},       {"audio/x-wav", ".wav"},
    {"audio/wave", ".wav"},      {"audio/mpeg", ".mp3"},
    {"audio/mp3", ".mp3"},       {"audio/ogg", ".ogg"},
    {"audio/flac", ".flac"},     {"audio/webm", ".webm"},
    {"audio/mp4", ".m4a"},       {"audio/aac", ".aac"},
    {"application/pdf", ".pdf"}, {"application/json", ".json"},
    {"application/zip", ".zip"}, {"text/plain", ".txt"},
    {"text/csv", ".csv"},        {"application/octet-stream", ".bin"},
}};

std::string extension_for(std::string_view mime) {
    for (const auto& [type, extension] : extensions) {
        if (type == mime) return std::string(extension);
    }
    return ".bin";
}

json string_or_null(const json& block, const char* key) {
    const auto it = block.find(key);
    return it != block.end() && it->is_string() ? *it : json(nullptr);
}

std::string string_or_empty(const json& block, const char* key) {
    const auto it = block.find(key);
    return it != block.end() && it->is_string() ? it->get<std::string>() : std::string();
}

class converter {
  public:
    converter(const std::filesystem::path& workspace, const std::filesystem::path& directory)
        : workspace_(workspace), directory_(directory) {}

    void add(const json& block) {
        const auto type = string_or_empty(block, "type");
        if (type == "text") {
            const auto text = string_or_empty(block, "text");
            append_text(text);
            content_.push_back({{"type", "text"}, {"text", text}});
        } else if (type == "image" || type == "audio") {
            json item = {{"type", type}, {"mime_type", string_or_null(block, "mimeType")}};
            item["path"] = save(string_or_empty(block, "data"), string_or_empty(block, "mimeType"));
            if (type == "image" && item["path"].is_string()) images_.push_back(item["path"]);
            content_.push_back(std::move(item));
        } else if (type == "resource") {
            add_resource(block.contains("resource") && block["resource"].is_object()
                             ? block["resource"]
                             : json::object());
        } else if (type == "resource_link") {
            append_text("[resource: " + string_or_empty(block, "uri") + "]");
            content_.push_back({{"type", "resource_link"},
                                {"uri", string_or_null(block, "uri")},
                                {"name", string_or_null(block, "name")},
                                {"mime_type", string_or_null(block, "mimeType")},
                                {"title", string_or_null(block, "title")},
                                {"description", string_or_null(block, "description")}});
        } else {
            content_.push_back({{"type", type}});
        }
    }

    json finish(const mcp::session::call_tool_result& result) {
        if (unsaved_ > 0) {
            append_text("[ipybox: " + std::to_string(unsaved_) + " more binary items not saved (" +
                        std::to_string(max_saved_files) + " files at most per result)]");
        }
        return {{"text", std::move(text_)},
                {"structured", result.structured.is_object() ? result.structured : json(nullptr)},
                {"images", std::move(images_)},
                {"is_error", result.is_error},
                {"content", std::move(content_)}};
    }

  private:
    void append_text(const std::string& piece) {
        if (!text_.empty()) text_ += "\n";
        text_ += piece;
    }

    void add_resource(const json& resource) {
        json item = {{"type", "resource"},
                     {"uri", string_or_null(resource, "uri")},
                     {"mime_type", string_or_null(resource, "mimeType")}};
        if (resource.contains("text") && resource["text"].is_string()) {
            append_text(resource["text"].get<std::string>());
            item["text"] = resource["text"];
        } else {
            item["path"] =
                save(string_or_empty(resource, "blob"), string_or_empty(resource, "mimeType"));
        }
        content_.push_back(std::move(item));
    }

    // The decoded file's path, or null when the data is not base64 or the result has saved
    // max_saved_files already.
    json save(const std::string& data, const std::string& mime) {
        if (saved_ >= max_saved_files) {
            ++unsaved_;
            return nullptr;
        }
        const auto bytes = core::base64_decode(data);
        if (!bytes) return nullptr;
        ++saved_;
        const auto path = directory_ / (core::random_hex(4) + extension_for(mime));
        workspace::write_file_beneath(workspace_, path, *bytes);
        return path.string();
    }

    const std::filesystem::path& workspace_;
    const std::filesystem::path& directory_;
    std::size_t saved_ = 0;
    std::size_t unsaved_ = 0;
    std::string text_;
    json images_ = json::array();
    json content_ = json::array();
};

}  // namespace

json tool_result_json(const mcp::session::call_tool_result& result,
                      const std::filesystem::path& workspace,
                      const std::filesystem::path& images_directory) {
    const auto files_directory = images_directory / tool_files_folder;
    converter convert(workspace, files_directory);
    for (const auto& block : result.content) {
        if (block.is_object()) convert.add(block);
    }
    return convert.finish(result);
}

}  // namespace ipybox::app
