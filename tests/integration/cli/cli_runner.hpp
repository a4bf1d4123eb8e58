#pragma once
// Runs the ipybox executable of this build with a shell command line and captures its stdout,
// stderr and exit code separately.
#include <string>

namespace ipybox::testing {

struct command_result {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// `arguments` is appended to the executable's path as shell text (quote it yourself);
// `input` is fed to standard input; `environment` ("A=1 B=2") is set for the command only.
command_result run_ipybox(const std::string& arguments, const std::string& input = "",
                          const std::string& environment = "");

// As run_ipybox, with a terminal on standard input (a pseudo-terminal, so isatty(0) holds):
// `input` is typed ahead, and end of input (^D) follows it so that no question waits forever.
command_result run_ipybox_on_terminal(const std::string& arguments, const std::string& input,
                                      const std::string& environment = "");

// ipybox running in the background, so that it can be sent signals (a terminal's Ctrl-C) while
// it runs; its stdin is /dev/null. The destructor kills it if it still runs, and reaps it.
class background_ipybox {
  public:
    explicit background_ipybox(const std::string& arguments);
    ~background_ipybox();
    background_ipybox(const background_ipybox&) = delete;
    background_ipybox& operator=(const background_ipybox&) = delete;

    // True once its stdout holds `text` (looked at every 20 ms for up to a minute).
    bool wait_for_output(const std::string& text);
    void send_signal(int number);
    // Waits for it to exit (up to a minute; then it is killed) and returns what it wrote.
    command_result finish();

  private:
    int pid_ = -1;
    std::string directory_;
};

// Single-quotes `text` for /bin/sh.
std::string shell_quote(const std::string& text);

}  // namespace ipybox::testing
