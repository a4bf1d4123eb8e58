#include "ipybox/core/python_names.hpp"

#include <algorithm>

namespace ipybox::core {

bool is_python_keyword(std::string_view word) {
    return std::find(python_keywords.begin(), python_keywords.end(), word) != python_keywords.end();
}

bool is_ascii_identifier(std::string_view word) {
    return !word.empty() && identifier_end(word, 0) == word.size();
}

bool is_public_identifier(std::string_view word) {
    return is_ascii_identifier(word) && word.front() != '_';
}

bool is_python_name(std::string_view word) {
    return is_ascii_identifier(word) && !is_python_keyword(word);
}

std::size_t identifier_end(std::string_view text, std::size_t at) {
    if (at >= text.size() || !is_identifier_start(text[at])) return at;
    while (at < text.size() && is_identifier_char(text[at])) ++at;
    return at;
}

}  // namespace ipybox::core
