#include "keeper.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <ctime>

#include "ipybox/core/quiet_sockets.hpp"
#include "ipybox/process/detail/descriptor_sweep.hpp"
#include "ipybox/process/spawn.hpp"
#include "tree_kill.hpp"

namespace ipybox::process {
namespace {

constexpr int max_entries = 256;
constexpr std::size_t max_text = 512;

// The keeper's whole state: fixed tables, no allocation.
struct registry {
    char groups[max_entries][max_text];
    bool group_used[max_entries];
    char tags[max_entries][max_text];
    bool tag_used[max_entries];
};

void update(char (*table)[max_text], bool* used, bool add, const char* text) {
    for (int i = 0; i < max_entries; ++i) {
        if (used[i] && std::strcmp(table[i], text) == 0) {
            if (!add) used[i] = false;
            return;
        }
    }
    if (!add) return;
    for (int i = 0; i < max_entries; ++i) {
        if (!used[i]) {
            std::strncpy(table[i], text, max_text - 1);
            table[i][max_text - 1] = '\0';
            used[i] = true;
            return;
        }
    }
}

void apply_line(registry& state, char* line) {
    if (std::strlen(line) < 4 || line[2] != ' ') return;
    const bool add = line[0] == '+';
    const char* argument = line + 3;
    if (line[1] == 'G') update(state.groups, state.group_used, add, argument);
    if (line[1] == 'T') update(state.tags, state.tag_used, add, argument);
}

[[noreturn]] void run_keeper(int input) {
    ::setsid();
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGINT, &ignore, nullptr);  // a terminal's Ctrl-C is ipybox's to handle
    ::sigaction(SIGHUP, &ignore, nullptr);
    ::sigaction(SIGPIPE, &ignore, nullptr);
    // Nothing of ipybox's but the pipe: above all not its stdout, which an MCP client reads
    // until every holder has closed it.
    const int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
        for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
    }
    if (::dup2(input, 3) < 0) ::_exit(1);
    detail::sweep_descriptors_from(4, detail::sweep_action::close, /*use_fast_path=*/true);

    static registry state;  // zero-initialised; static so that it is not on the stack
    char buffer[4096];
    char line[max_text + 8];
    std::size_t used = 0;
    for (;;) {
        const ssize_t got = ::read(3, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        for (ssize_t i = 0; i < got; ++i) {
            if (buffer[i] == '\n') {
                line[used] = '\0';
                apply_line(state, line);
                used = 0;
            } else if (used < sizeof line - 1) {
                line[used++] = buffer[i];
            }
        }
    }
    // First SIGTERM and a moment: srt, for one, then removes the placeholder files it put in the
    // workspace to protect paths that did not exist. Then SIGKILL for whatever is left.
    for (int i = 0; i < max_entries; ++i) {
        if (state.group_used[i]) detail::signal_cgroup(state.groups[i], SIGTERM);
        if (state.tag_used[i]) detail::signal_tagged(state.tags[i], SIGTERM);
    }
    for (int round = 0; round < 100; ++round) {  // up to 2 s
        bool any = false;
        int pids[8];
        for (int i = 0; i < max_entries && !any; ++i) {
            any = (state.group_used[i] && detail::cgroup_members(state.groups[i], pids, 8) > 0) ||
                  (state.tag_used[i] && detail::tagged_members(state.tags[i], pids, 8) > 0);
        }
        if (!any) break;
        timespec wait{0, 20 * 1000 * 1000};
        ::nanosleep(&wait, nullptr);
    }
    for (int i = 0; i < max_entries; ++i) {
        if (state.tag_used[i]) detail::end_tagged(state.tags[i]);
        if (state.group_used[i]) detail::end_cgroup(state.groups[i]);
    }
    ::_exit(0);
}

}  // namespace

keeper::keeper() {
    // A socket pair rather than a pipe: a quiet send cannot raise SIGPIPE in ipybox should the
    // keeper be gone.
    int ends[2] = {-1, -1};
    if (core::quiet_socket_pair(AF_UNIX, SOCK_STREAM, ends) != 0) {
        throw process_error(std::string("cannot start the keeper: ") + std::strerror(errno));
    }
    unique_fd ours(ends[0]);
    unique_fd theirs(ends[1]);
    const pid_t pid = ::fork();
    if (pid < 0)
        throw process_error(std::string("cannot start the keeper: ") + std::strerror(errno));
    if (pid == 0) run_keeper(theirs.get());
    pid_ = pid;
    socket_ = ours.release();
}

keeper::~keeper() {
    {
        std::lock_guard lock(mutex_);
        if (socket_ >= 0) ::close(socket_);
        socket_ = -1;
    }
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
}

void keeper::send(const char* verb, const std::string& argument) {
    if (argument.empty() || argument.size() >= max_text ||
        argument.find('\n') != std::string::npos) {
        throw process_error("the keeper cannot hold '" + argument + "'");
    }
    const std::string line = std::string(verb) + " " + argument + "\n";
    std::lock_guard lock(mutex_);
    // Under the lock: lines are never interleaved.
    if (socket_ < 0 ||
        core::quiet_send(socket_, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
        throw process_error("cannot reach the keeper: " + std::string(std::strerror(errno)));
    }
}

}  // namespace ipybox::process
