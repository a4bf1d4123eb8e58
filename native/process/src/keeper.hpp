#pragma once
// The keeper: a process forked (without exec) from ipybox that outlives it just long enough to
// end the process trees ipybox still contained when it died. ipybox tells it over a socket which
// groups and tags exist ("+G <dir>", "-G <dir>", "+T <tag>", "-T <tag>", one per line); at end
// of file on that socket (ipybox exited, or was killed with SIGKILL) the keeper ends every tree
// still registered and exits. It holds no other descriptor of ours (stdio is /dev/null), leads
// its own session, and runs only async-signal-safe code.
//
// Thread-safety: the methods may be called from any thread.
#include <mutex>
#include <string>

namespace ipybox::process {

class keeper {
  public:
    keeper();   // forks; throws process_error
    ~keeper();  // closes the socket (the keeper then cleans up and exits) and reaps it

    keeper(const keeper&) = delete;
    keeper& operator=(const keeper&) = delete;

    void add_group(const std::string& directory) { send("+G", directory); }
    void remove_group(const std::string& directory) { send("-G", directory); }
    void add_tag(const std::string& tag) { send("+T", tag); }
    void remove_tag(const std::string& tag) { send("-T", tag); }
    int pid() const { return pid_; }

  private:
    void send(const char* verb, const std::string& argument);

    int pid_ = -1;
    int socket_ = -1;
    std::mutex mutex_;
};

}  // namespace ipybox::process
