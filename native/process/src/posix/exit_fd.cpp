#include "ipybox/process/exit_fd.hpp"

namespace ipybox::process {

// The portable build: no descriptor, exits are learned by waiting (exit_fd.hpp).
unique_fd open_exit_fd(int /*pid*/) {
    return {};
}

}  // namespace ipybox::process
