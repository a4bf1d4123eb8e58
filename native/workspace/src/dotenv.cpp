#include "ipybox/workspace/dotenv.hpp"

#include "ipybox/core/log.hpp"
#include "ipybox/workspace/bounded_read.hpp"

namespace ipybox::workspace {
namespace {

bool is_key_start(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_key_char(char c) {
    return is_key_start(c) || (c >= '0' && c <= '9');
}
bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

class dotenv_parser {
  public:
    explicit dotenv_parser(std::string_view text) : text_(text) {}

    std::map<std::string, std::string> parse() {
        std::map<std::string, std::string> values;
        while (pos_ < text_.size()) {
            skip_spaces();
            if (at_end_of_line()) {
                next_line();
                continue;
            }
            if (peek() == '#') {
                skip_rest_of_line();
                continue;
            }
            const std::size_t line_start = pos_;
            const int line = line_;
            std::string key;
            std::string value;
            if (parse_assignment(key, value)) {
                values[key] = std::move(value);
            } else {
                core::logger("workspace")->warn(".env line {} is not KEY=VALUE; ignored", line);
                pos_ = line_start;
                line_ = line;
                skip_rest_of_line();
            }
        }
        return values;
    }

  private:
    char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
    bool at_end_of_line() const { return pos_ >= text_.size() || text_[pos_] == '\n'; }
    void skip_spaces() {
        while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
    }
    void next_line() {
        if (pos_ < text_.size()) ++pos_;
        ++line_;
    }
    void skip_rest_of_line() {
        while (!at_end_of_line()) ++pos_;
        next_line();
    }

    bool parse_assignment(std::string& key, std::string& value) {
        if (text_.substr(pos_).starts_with("export") && pos_ + 6 < text_.size() &&
            (text_[pos_ + 6] == ' ' || text_[pos_ + 6] == '\t')) {
            pos_ += 6;
            skip_spaces();
        }
        if (!is_key_start(peek())) return false;
        while (pos_ < text_.size() && is_key_char(text_[pos_])) key += text_[pos_++];
        skip_spaces();
        if (peek() != '=') return false;
        ++pos_;
        skip_spaces();
        if (peek() == '"' || peek() == '\'') {
            if (!parse_quoted(value)) return false;
            skip_spaces();
            if (!at_end_of_line() && peek() != '#') return false;
            skip_rest_of_line();
            return true;
        }
        parse_unquoted(value);
        return true;
    }

    // A quoted value may span lines; double quotes know the usual escapes.
    bool parse_quoted(std::string& value) {
        const char quote = text_[pos_++];
        while (pos_ < text_.size()) {
            const char c = text_[pos_++];
            if (c == quote) return true;
            if (c == '\n') ++line_;
            if (c == '\\' && quote == '"' && pos_ < text_.size()) {
                const char escaped = text_[pos_++];
                switch (escaped) {
                    case 'n':
                        value += '\n';
                        break;
                    case 'r':
                        value += '\r';
                        break;
                    case 't':
                        value += '\t';
                        break;
                    case '"':
                    case '\\':
                    case '$':
                        value += escaped;
                        break;
                    default:
                        value += '\\';
                        value += escaped;
                        if (escaped == '\n') ++line_;
                }
                continue;
            }
            value += c;
        }
        return false;  // unterminated
    }

    void parse_unquoted(std::string& value) {
        const std::size_t start = pos_;
        while (!at_end_of_line()) {
            // `#` starts a comment only after whitespace: `a#b` is a value.
            if (text_[pos_] == '#' && pos_ > start && is_space(text_[pos_ - 1])) break;
            ++pos_;
        }
        std::size_t end = pos_;
        while (end > start && is_space(text_[end - 1])) --end;
        value = std::string(text_.substr(start, end - start));
        skip_rest_of_line();
    }

    std::string_view text_;
    std::size_t pos_ = 0;
    int line_ = 1;
};

}  // namespace

std::map<std::string, std::string> parse_dotenv(std::string_view text) {
    return dotenv_parser(text).parse();
}

std::map<std::string, std::string> load_dotenv(const std::filesystem::path& path) {
    const auto content = read_regular_file(path, max_settings_file_bytes);
    return content ? parse_dotenv(*content) : std::map<std::string, std::string>();
}

}  // namespace ipybox::workspace
