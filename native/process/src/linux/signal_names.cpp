#include "../signal_names.hpp"

#include <cstring>

namespace ipybox::process::detail {

const char* signal_abbreviation(int signal) {
    return sigabbrev_np(signal);
}

}  // namespace ipybox::process::detail
