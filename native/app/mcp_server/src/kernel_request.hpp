#pragma once
// What create_kernel asks for, read from its checked arguments against what the server allows
// (pure; kernel_handles.cpp applies it). Every refusal is a detail::argument_error naming the
// argument and the bound.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "ipybox/process/containment.hpp"

namespace ipybox::app {

struct kernel_request {
    // Relative to the server's workspace; empty for the workspace itself.
    std::filesystem::path workspace;
    std::optional<bool> sandbox;      // absent: as the server runs its kernels
    process::resource_limits limits;  // the server's, lowered where asked
    bool fast_reset = false;          // a spare kernel kept for reset()
};

// `arguments`: "workspace" (string, "" or a relative path of plain names: no "..", no name
// starting with ".", at most 16 parts of at most 100 bytes), "sandbox" (boolean or null),
// "memory" ("512M", "2G": at most the server's memory limit), "cpu_seconds" (an integer from 1,
// at most the server's CPU limit when it has one), "fast_reset" (boolean).
kernel_request read_kernel_request(const nlohmann::json& arguments,
                                   const process::resource_limits& server);

}  // namespace ipybox::app
