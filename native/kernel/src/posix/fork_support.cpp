#include "../fork_support.hpp"

namespace ipybox::kernel::detail {

std::string platform_fork_obstacle() {
    return "kernels start cold on this platform: Apple's frameworks are not safe to use after "
           "fork (IPYBOX_PLATFORM is not linux)";
}

}  // namespace ipybox::kernel::detail
