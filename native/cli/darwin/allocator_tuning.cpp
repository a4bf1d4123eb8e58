#include "../allocator_tuning.hpp"

namespace ipybox::cli {

void tune_allocator() {}

}  // namespace ipybox::cli
