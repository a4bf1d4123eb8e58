#include <doctest/doctest.h>

#include "ipybox/jupyter/connection_info.hpp"

using namespace ipybox::jupyter;

TEST_SUITE("jupyter.connection_info") {
    TEST_CASE("ipc endpoints are the path prefix with the port as suffix") {
        const auto info = connection_info::make_ipc("/tmp/x/k");
        CHECK(info.endpoint(channel::shell) == "ipc:///tmp/x/k-1");
        CHECK(info.endpoint(channel::heartbeat) == "ipc:///tmp/x/k-5");
        CHECK(info.key.size() == 64);
    }

    TEST_CASE("tcp uses five distinct loopback ports") {
        const auto info = connection_info::make_tcp();
        CHECK(info.ip == "127.0.0.1");
        const std::vector<int> ports = {info.shell_port, info.iopub_port, info.stdin_port,
                                        info.control_port, info.hb_port};
        for (std::size_t i = 0; i < ports.size(); ++i) {
            CHECK(ports[i] > 0);
            for (std::size_t j = i + 1; j < ports.size(); ++j) CHECK(ports[i] != ports[j]);
        }
    }

    TEST_CASE("round-trips through the connection file JSON") {
        const auto info = connection_info::make_ipc("/tmp/y/k");
        const auto back = connection_info::from_json(info.to_json());
        CHECK(back.endpoint(channel::iopub) == info.endpoint(channel::iopub));
        CHECK(back.key == info.key);
    }

    TEST_CASE("names the missing field of a malformed connection file") {
        auto value = connection_info::make_ipc("/tmp/z/k").to_json();
        value.erase("iopub_port");
        CHECK_THROWS_WITH_AS(connection_info::from_json(value), "connection info lacks iopub_port",
                             std::invalid_argument);
    }

    TEST_CASE("refuses a signature scheme other than hmac-sha256") {
        auto value = connection_info::make_ipc("/tmp/z/k").to_json();
        value["signature_scheme"] = "hmac-md5";
        CHECK_THROWS_AS(connection_info::from_json(value), std::invalid_argument);
    }
}
