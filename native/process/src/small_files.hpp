#pragma once
// Reading small files and joining paths on stack buffers (private to the process module):
// async-signal-safe, for the keeper and the code it shares with ipybox.
#include <cstddef>

namespace ipybox::process::detail {

constexpr std::size_t path_capacity = 4096;

// `directory` + "/" + `name` into `out` (path_capacity bytes); false when it does not fit.
bool join_path(char* out, const char* directory, const char* name);

// Reads a whole small file into `buffer` (NUL-terminated, at most capacity - 1 bytes); returns
// its length, or -1 when it cannot be opened.
long read_small_file(const char* path, char* buffer, std::size_t capacity);

}  // namespace ipybox::process::detail
