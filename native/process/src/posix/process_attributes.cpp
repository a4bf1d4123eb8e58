#include "ipybox/process/process_attributes.hpp"

// Off Linux no kernel is forked from a template, and nothing reads another process's attributes:
// they are not read (nullopt), so that no check compares them.
namespace ipybox::process {

std::optional<process_attributes> attributes_of(int) {
    return std::nullopt;
}

process_attributes with_limits(process_attributes base, const process_rlimits&) {
    return base;
}

std::string attribute_trouble(int, const process_attributes&) {
    return {};
}

}  // namespace ipybox::process
