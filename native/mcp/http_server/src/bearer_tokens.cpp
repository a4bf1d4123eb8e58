#include "ipybox/mcp/http_server/bearer_tokens.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "ipybox/core/byte_sizes.hpp"

namespace ipybox::mcp::http_server {
namespace {

constexpr std::size_t min_token_length = 32;
constexpr std::size_t max_token_length = 512;
constexpr std::size_t max_principal_length = 64;

bool is_visible_ascii(char c) {
    return c > ' ' && c < 0x7f;
}

bool is_principal_name(std::string_view name) {
    return !name.empty() && name.size() <= max_principal_length &&
           std::all_of(name.begin(), name.end(), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-';
           });
}

std::vector<std::string_view> words_of(std::string_view line) {
    std::vector<std::string_view> words;
    std::size_t at = 0;
    while (at < line.size()) {
        const auto start = line.find_first_not_of(" \t\r", at);
        if (start == std::string_view::npos) break;
        const auto end = std::min(line.find_first_of(" \t\r", start), line.size());
        words.push_back(line.substr(start, end - start));
        at = end;
    }
    return words;
}

std::invalid_argument line_error(std::size_t number, const std::string& what) {
    return std::invalid_argument("auth token file, line " + std::to_string(number) + ": " + what);
}

std::size_t positive_count(std::string_view text, std::size_t line, std::string_view key) {
    std::size_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value == 0) {
        throw line_error(line, std::string(key) + " must be a positive integer");
    }
    return value;
}

void read_limit(principal_limits& limits, std::string_view word, std::size_t line) {
    const auto equals = word.find('=');
    const auto key = word.substr(0, equals);
    const auto value =
        equals == std::string_view::npos ? std::string_view() : word.substr(equals + 1);
    const auto twice = [&](bool given) {
        if (given) throw line_error(line, std::string(key) + " is given twice");
    };
    if (equals != std::string_view::npos && key == "memory") {
        twice(limits.memory_bytes.has_value());
        try {
            limits.memory_bytes = core::parse_bytes(std::string(value));
        } catch (const std::invalid_argument& e) {
            throw line_error(line, std::string("memory: ") + e.what());
        }
        return;
    }
    std::optional<std::size_t>* slot = nullptr;
    if (key == "max_kernels") slot = &limits.max_kernels;
    if (key == "max_concurrent_cells") slot = &limits.max_concurrent_cells;
    if (key == "cpu_seconds" && equals != std::string_view::npos) {
        twice(limits.cpu_seconds.has_value());
        limits.cpu_seconds = positive_count(value, line, key);
        return;
    }
    if (slot == nullptr || equals == std::string_view::npos) {
        throw line_error(line, "unknown limit '" + std::string(key) +
                                   "' (max_kernels=N, max_concurrent_cells=N, memory=SIZE, "
                                   "cpu_seconds=N)");
    }
    twice(slot->has_value());
    *slot = positive_count(value, line, key);
}

}  // namespace

bool equal_in_constant_time(std::string_view presented, std::string_view expected) {
    unsigned char difference = presented.size() == expected.size() ? 0 : 1;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const char given = i < presented.size() ? presented[i] : '\0';
        difference |= static_cast<unsigned char>(given ^ expected[i]);
    }
    return difference == 0;
}

token_table token_table::parse(std::string_view text) {
    token_table table;
    std::set<std::string, std::less<>> principals;
    std::size_t number = 0;
    while (!text.empty()) {
        ++number;
        const auto newline = text.find('\n');
        const auto line = text.substr(0, newline);
        text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
        const auto words = words_of(line);
        if (words.empty() || words.front().front() == '#') continue;
        if (words.size() < 2) throw line_error(number, "expected: TOKEN PRINCIPAL [limits]");
        const auto token = words[0];
        if (token.size() < min_token_length || token.size() > max_token_length ||
            !std::all_of(token.begin(), token.end(), is_visible_ascii)) {
            throw line_error(number, "the token must be 32 to 512 visible ASCII characters");
        }
        if (!is_principal_name(words[1])) {
            throw line_error(number, "the principal must be 1 to 64 of A-Z a-z 0-9 . _ -");
        }
        principal who{std::string(words[1]), {}};
        for (std::size_t i = 2; i < words.size(); ++i) read_limit(who.limits, words[i], number);
        for (const auto& existing : table.entries_) {
            if (equal_in_constant_time(token, existing.token)) {
                throw line_error(number, "this token is already given to " + existing.who.name);
            }
        }
        if (!principals.insert(who.name).second) {
            throw line_error(number, "principal " + who.name + " is given twice");
        }
        table.entries_.push_back({std::string(token), std::move(who)});
    }
    return table;
}

std::optional<principal> token_table::authenticate(std::string_view authorization_header) const {
    constexpr std::string_view scheme = "Bearer ";
    if (authorization_header.size() <= scheme.size() ||
        authorization_header.substr(0, scheme.size()) != scheme) {
        return std::nullopt;
    }
    const auto presented = authorization_header.substr(scheme.size());
    const entry* found = nullptr;
    for (const auto& candidate : entries_) {  // no early exit: every token is compared
        if (equal_in_constant_time(presented, candidate.token)) found = &candidate;
    }
    if (found == nullptr) return std::nullopt;
    return found->who;
}

token_table read_token_file(const std::filesystem::path& file) {
    struct stat status {};
    if (::stat(file.c_str(), &status) != 0) {
        throw std::runtime_error("cannot read the auth token file " + file.string() + ": " +
                                 std::strerror(errno));
    }
    if ((status.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
        throw std::runtime_error("the auth token file " + file.string() +
                                 " is open to its group or others; it holds secrets: chmod 600 it");
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read the auth token file " + file.string());
    std::ostringstream text;
    text << in.rdbuf();
    auto table = token_table::parse(text.str());
    if (table.size() == 0) {
        throw std::invalid_argument("the auth token file " + file.string() + " holds no token");
    }
    return table;
}

}  // namespace ipybox::mcp::http_server
