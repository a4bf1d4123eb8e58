#pragma once
// An Asio loop run by a thread of the test's own, as an application's would be: for code that
// runs on the caller's loop (a kernel session, a code executor given an io_context). Declare it
// before what uses it, so that it outlives that.
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
