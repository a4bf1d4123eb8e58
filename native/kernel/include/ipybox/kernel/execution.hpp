#pragma once
// What an execution produces: streamed chunks while it runs, then its outcome.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ipybox::kernel {

struct output_chunk {
    std::string stream;                          // "stdout", "stderr" or "display"
    std::string text;                            // as received (may be empty for an image)
    std::optional<std::filesystem::path> image;  // a PNG the code displayed, already saved
};

struct execution_result {
    // stdout, stderr and the text of displayed values in arrival order; trailing white space
    // removed. Over the output cap the middle is replaced by a line saying how much was omitted.
    std::string text;
    std::vector<std::filesystem::path> images;  // PNGs saved under the images directory
    int execution_count = 0;
    // Things the caller should know, e.g. that a fresh kernel replaced one that had died.
    std::vector<std::string> notices;
    std::size_t omitted_output_bytes = 0;
    // Time the kernel itself spent (execute_reply "started" to the idle status), if reported.
    std::optional<long long> kernel_micros;
};

// How an execution ended: every ending is a value of this one type, decided by the kernel
// session (execution_stream::finish()) and converted once by each front end (the C++ API, the MCP
// result, the CLI's exit code). Nothing here is thrown.
struct execution_outcome {
    enum class kind {
        completed,     // the code ran to its end
        cancelled,     // cancel() stopped it, or withdrew it before it ran
        exception,     // the code raised (or was refused before it ran: ename says why)
        timeout,       // it ran past its timeout and was interrupted; see state_kept
        kernel_died,   // the kernel died while it ran, or was lost before its turn
        start_failed,  // no kernel could start for it (or the session was stopped)
    };
    kind ending = kind::completed;
    // completed, cancelled: everything the code produced. Otherwise `text` is what it printed
    // before it failed (may be empty) and the rest is empty.
    execution_result result;
    // A failure as a person should read it: for an exception "<ename>: <evalue>\n<traceback>"
    // without ANSI codes; for a timeout or a dead kernel what happened to the kernel's state.
    std::string message;
    std::string ename, evalue, traceback;  // exception
    bool state_kept = true;                // false when the kernel's state was lost

    bool failed() const { return ending != kind::completed && ending != kind::cancelled; }
};

}  // namespace ipybox::kernel
