#pragma once
// What an execution produces: streamed chunks while it runs, then a result or a typed error.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
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
    bool cancelled = false;  // cancel() ended it; text holds what was produced until then
    // Things the caller should know, e.g. that a fresh kernel replaced one that had died.
    std::vector<std::string> notices;
    std::size_t omitted_output_bytes = 0;
    // Time the kernel itself spent (execute_reply "started" to the idle status), if reported.
    std::optional<long long> kernel_micros;
};

// The code raised an exception. what() is "<ename>: <evalue>\n<traceback>" without ANSI codes.
class execution_error : public std::runtime_error {
  public:
    execution_error(std::string ename, std::string evalue, std::string traceback,
                    std::string output);
    const std::string& ename() const { return ename_; }
    const std::string& evalue() const { return evalue_; }
    const std::string& traceback() const { return traceback_; }
    // What the code printed before it failed.
    const std::string& output() const { return output_; }

  private:
    std::string ename_, evalue_, traceback_, output_;
};

// The execution ran past its timeout. The kernel was interrupted; if it did not stop, it was
// restarted and `state_kept()` is false.
class execution_timeout : public std::runtime_error {
  public:
    execution_timeout(const std::string& message, bool state_kept, std::string output)
        : std::runtime_error(message), state_kept_(state_kept), output_(std::move(output)) {}
    bool state_kept() const { return state_kept_; }
    const std::string& output() const { return output_; }

  private:
    bool state_kept_;
    std::string output_;
};

// The kernel process died while running the code. Its state is lost; the next execution gets a
// fresh kernel.
class kernel_died_error : public std::runtime_error {
  public:
    kernel_died_error(const std::string& message, std::string output)
        : std::runtime_error(message), output_(std::move(output)) {}
    const std::string& output() const { return output_; }

  private:
    std::string output_;
};

}  // namespace ipybox::kernel
