#include "../process_inspection.hpp"

#include <libproc.h>
#include <mach/mach.h>
#include <sys/proc.h>
#include <sys/proc_info.h>
#include <sys/types.h>

// Through libproc and Mach: Darwin has no /proc.
namespace ipybox::testing {

std::vector<int> tree_of(int pid) {
    std::vector<int> out{pid};
    for (std::size_t i = 0; i < out.size(); ++i) {
        std::vector<pid_t> children(4096);
        // The children of one process; proc_listpids gives the bytes it filled.
        const int bytes =
            ::proc_listpids(PROC_PPID_ONLY, static_cast<uint32_t>(out[i]), children.data(),
                            static_cast<int>(children.size() * sizeof(pid_t)));
        const auto count = bytes > 0 ? static_cast<std::size_t>(bytes) / sizeof(pid_t) : 0;
        for (std::size_t k = 0; k < count && k < children.size(); ++k) {
            if (children[k] > 0) out.push_back(children[k]);
        }
    }
    return out;
}

bool process_alive(int pid) {
    proc_bsdinfo info{};
    const int got = ::proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &info, sizeof info);
    return got == static_cast<int>(sizeof info) && info.pbi_status != SZOMB;
}

long own_resident_kib() {
    mach_task_basic_info_data_t info{};
    mach_msg_type_number_t count = MACH_TASK_BASIC_INFO_COUNT;
    if (::task_info(::mach_task_self(), MACH_TASK_BASIC_INFO, reinterpret_cast<task_info_t>(&info),
                    &count) != KERN_SUCCESS) {
        return 0;
    }
    return static_cast<long>(info.resident_size / 1024);
}

}  // namespace ipybox::testing
