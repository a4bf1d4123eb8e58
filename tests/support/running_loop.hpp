#pragma once
// An Asio loop on a thread of its own, as the application's runtime provides one: for tests of
// code that runs on a loop (timers, sockets) while the test thread plays the other side.
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <thread>

namespace ipybox::testing {

struct running_loop {
    boost::asio::io_context io;
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{
        io.get_executor()};
    std::thread thread{[this] { io.run(); }};

    ~running_loop() {
        work.reset();
        io.stop();
        thread.join();
    }
};

}  // namespace ipybox::testing
