#include "ipybox/sandbox/sandbox_platform.hpp"

namespace ipybox::sandbox {

sandbox_platform host_sandbox_platform() {
#if IPYBOX_SANDBOX_SEATBELT
    return sandbox_platform::darwin;
#else
    return sandbox_platform::linux;
#endif
}

}  // namespace ipybox::sandbox
