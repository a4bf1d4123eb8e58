#include "../allocator_tuning.hpp"

#include <malloc.h>

namespace ipybox::cli {

void tune_allocator() {
    mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
}

}  // namespace ipybox::cli
