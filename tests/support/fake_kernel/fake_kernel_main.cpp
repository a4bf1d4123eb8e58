// A fake IPython kernel for the kernel module's tests: a process that ipybox starts like the real
// one (`<python> -m ipybox_runtime.kernel_main -f <connection file>`) and that answers on the
// Jupyter channels with fake_kernel_sockets. Cells are scripts, one command a line:
//
//   print <text>      a line on stdout          set <value> / get   state that a restart loses
//   sleep <ms>        busy; an interrupt ends it with KeyboardInterrupt
//   stubborn <ms>     busy; interrupts are ignored (only a restart ends it)
//   raise <ename> <evalue>
//   whoami            prints its connection file's path
//
// IPYBOX_FAKE_KERNEL_START changes the start-up: "exit" exits at once (saying so on stderr),
// "mute" answers kernel_info on shell but never on IOPub. The kernel exits when its stdin closes
// (ipybox's lifeline) or on shutdown_request.
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iostream>
#include <sstream>

#include "fake_kernel_sockets.hpp"

namespace {

using namespace ipybox;
using testing::fake_kernel_sockets;
using clock_type = std::chrono::steady_clock;
using jupyter::channel;
using jupyter::message;

struct running_cell {
    message request;
    std::deque<std::string> commands;
    std::optional<clock_type::time_point> busy_until;
    bool ignores_interrupt = false;
};

class fake_kernel {
  public:
    fake_kernel(jupyter::connection_info info, std::string connection_file, bool mute)
        : sockets_(std::move(info),
                   {channel::shell, channel::iopub, channel::control, channel::heartbeat}),
          connection_file_(std::move(connection_file)),
          mute_(mute) {}

    int run() {
        while (true) {
            if (cell_ && !cell_->busy_until) advance();
            std::vector<zmq::pollitem_t> items = {
                {sockets_.control.handle(), 0, ZMQ_POLLIN, 0},
                {sockets_.heartbeat.handle(), 0, ZMQ_POLLIN, 0},
                {sockets_.iopub.handle(), 0, ZMQ_POLLIN, 0},
                {nullptr, STDIN_FILENO, ZMQ_POLLIN, 0},
                // Like ipykernel, one cell at a time: shell waits while a cell runs. Nothing is
                // answered before a subscriber joined IOPub, whose echo would be lost.
                {sockets_.shell.handle(), 0,
                 static_cast<short>(cell_ || !subscribed_ ? 0 : ZMQ_POLLIN), 0},
            };
            auto wait = std::chrono::milliseconds(-1);
            if (cell_ && cell_->busy_until) {
                wait = std::max(std::chrono::milliseconds(0),
                                std::chrono::duration_cast<std::chrono::milliseconds>(
                                    *cell_->busy_until - clock_type::now()));
            }
            zmq::poll(items, wait);
            if (items[0].revents & ZMQ_POLLIN) on_control();
            if (items[1].revents & ZMQ_POLLIN) echo_heartbeat();
            if (items[2].revents & ZMQ_POLLIN) on_subscription();
            if (items[3].revents & ZMQ_POLLIN) {
                char byte;
                if (::read(STDIN_FILENO, &byte, 1) <= 0) return 0;  // ipybox let go of us
            }
            if (items[4].revents & ZMQ_POLLIN) on_shell();
            if (cell_ && cell_->busy_until && clock_type::now() >= *cell_->busy_until) {
                cell_->busy_until.reset();
            }
        }
    }

  private:
    void publish(const message& parent, const std::string& type, nlohmann::json content) {
        sockets_.publish(fake_kernel_sockets::child_of(parent, type, std::move(content)));
    }
    void status(const message& parent, const char* state) {
        publish(parent, "status", {{"execution_state", state}});
    }

    void on_subscription() {
        zmq::message_t subscription;
        while (sockets_.iopub.recv(subscription, zmq::recv_flags::dontwait)) {
            if (subscription.size() > 0 && subscription.data<char>()[0] == 1) subscribed_ = true;
        }
    }

    void echo_heartbeat() {
        zmq::message_t ping;
        if (sockets_.heartbeat.recv(ping, zmq::recv_flags::dontwait)) {
            sockets_.heartbeat.send(ping, zmq::send_flags::none);
        }
    }

    void on_control() {
        auto request = sockets_.receive(sockets_.control);
        if (!request) return;
        if (request->msg_type() == "shutdown_request") {
            sockets_.reply(sockets_.control, *request, "shutdown_reply", {{"status", "ok"}});
            std::exit(0);
        }
        if (request->msg_type() == "interrupt_request") {
            sockets_.reply(sockets_.control, *request, "interrupt_reply", {{"status", "ok"}});
            if (cell_ && !cell_->ignores_interrupt) {
                fail("KeyboardInterrupt", "");
            }
        }
    }

    void on_shell() {
        auto request = sockets_.receive(sockets_.shell);
        if (!request) return;
        const auto type = request->msg_type();
        if (type == "kernel_info_request") {
            if (!mute_) status(*request, "busy");
            sockets_.reply(sockets_.shell, *request, "kernel_info_reply",
                           {{"status", "ok"},
                            {"protocol_version", jupyter::protocol_version},
                            {"implementation", "fake"},
                            {"language_info", {{"name", "python"}}}});
            if (!mute_) status(*request, "idle");
        } else if (type == "execute_request") {
            ++execution_count_;
            status(*request, "busy");
            running_cell cell{*request, {}, std::nullopt, false};
            std::istringstream lines(request->content.value("code", ""));
            for (std::string line; std::getline(lines, line);) cell.commands.push_back(line);
            cell_ = std::move(cell);
        }
    }

    // Runs the cell's commands until one keeps the kernel busy or the cell ends.
    void advance() {
        while (cell_ && !cell_->busy_until) {
            if (cell_->commands.empty()) return finish("ok");
            const auto line = cell_->commands.front();
            cell_->commands.pop_front();
            const auto space = line.find(' ');
            const auto command = line.substr(0, space);
            const auto argument = space == std::string::npos ? "" : line.substr(space + 1);
            if (command == "print") {
                publish(cell_->request, "stream", {{"name", "stdout"}, {"text", argument + "\n"}});
            } else if (command == "sleep" || command == "stubborn") {
                cell_->busy_until =
                    clock_type::now() + std::chrono::milliseconds(std::stoi(argument));
                cell_->ignores_interrupt = command == "stubborn";
            } else if (command == "set") {
                value_ = argument;
            } else if (command == "get") {
                publish(cell_->request, "stream", {{"name", "stdout"}, {"text", value_ + "\n"}});
            } else if (command == "whoami") {
                publish(cell_->request, "stream",
                        {{"name", "stdout"}, {"text", connection_file_ + "\n"}});
            } else if (command == "raise") {
                const auto split = argument.find(' ');
                return fail(argument.substr(0, split),
                            split == std::string::npos ? "" : argument.substr(split + 1));
            } else {
                return fail("SyntaxError", "the fake kernel knows no command '" + command + "'");
            }
        }
    }

    void fail(const std::string& ename, const std::string& evalue) {
        publish(cell_->request, "error",
                {{"ename", ename}, {"evalue", evalue}, {"traceback", {ename + ": " + evalue}}});
        finish("error");
    }

    void finish(const std::string& outcome) {
        sockets_.reply(sockets_.shell, cell_->request, "execute_reply",
                       {{"status", outcome}, {"execution_count", execution_count_}});
        status(cell_->request, "idle");
        cell_.reset();
    }

    fake_kernel_sockets sockets_;
    std::string connection_file_;
    bool mute_;
    bool subscribed_ = false;
    int execution_count_ = 0;
    std::string value_ = "unset";
    std::optional<running_cell> cell_;
};

}  // namespace

int main(int argc, char** argv) {
    std::string connection_file;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::string(argv[i]) == "-f") connection_file = argv[i + 1];
    }
    const char* start = std::getenv("IPYBOX_FAKE_KERNEL_START");
    const std::string mode = start ? start : "";
    if (mode == "exit") {
        std::cerr << "the fake kernel was told not to start" << std::endl;
        return 3;
    }
    std::ifstream in(connection_file);
    const auto info = jupyter::connection_info::from_json(nlohmann::json::parse(in));
    return fake_kernel(info, connection_file, mode == "mute").run();
}
