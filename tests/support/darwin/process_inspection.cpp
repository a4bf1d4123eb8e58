#include "../process_inspection.hpp"

#include <libproc.h>
#include <mach/mach.h>
#include <sys/proc.h>
#include <sys/proc_info.h>
#include <sys/types.h>

#include <string>

// Through libproc and Mach: Darwin has no /proc.
namespace ipybox::testing {

std::multiset<std::string> descriptor_targets(int pid) {
    std::multiset<std::string> out;
    std::vector<proc_fdinfo> descriptors(4096);
    const int bytes = ::proc_pidinfo(pid, PROC_PIDLISTFDS, 0, descriptors.data(),
                                     static_cast<int>(descriptors.size() * sizeof(proc_fdinfo)));
    const auto count = bytes > 0 ? static_cast<std::size_t>(bytes) / sizeof(proc_fdinfo) : 0;
    for (std::size_t i = 0; i < count && i < descriptors.size(); ++i) {
        const int fd = descriptors[i].proc_fd;
        std::string target = "other";
        if (descriptors[i].proc_fdtype == PROX_FDTYPE_SOCKET) {
            socket_fdinfo info{};
            if (::proc_pidfdinfo(pid, fd, PROC_PIDFDSOCKETINFO, &info, sizeof info) ==
                static_cast<int>(sizeof info)) {
                target = "socket:[" + std::to_string(info.psi.soi_so) + "]";
            }
        } else if (descriptors[i].proc_fdtype == PROX_FDTYPE_PIPE) {
            pipe_fdinfo info{};
            if (::proc_pidfdinfo(pid, fd, PROC_PIDFDPIPEINFO, &info, sizeof info) ==
                static_cast<int>(sizeof info)) {
                target = "pipe:[" + std::to_string(info.pipeinfo.pipe_handle) + "]";
            }
        } else if (descriptors[i].proc_fdtype == PROX_FDTYPE_VNODE) {
            vnode_fdinfowithpath info{};
            if (::proc_pidfdinfo(pid, fd, PROC_PIDFDVNODEPATHINFO, &info, sizeof info) ==
                static_cast<int>(sizeof info)) {
                target = info.pvip.vip_path;
            }
        }
        out.insert(std::move(target));
    }
    return out;
}

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
