#pragma once
// How the process's allocator is set up before anything else runs (issue 39's platform layer):
//   Linux (glibc)  blocks of 1 MiB or more are mapped on their own and go back to the system when
//                  freed. glibc would raise this threshold to the largest block freed so far, and
//                  later blocks that size would come from heaps that keep their pages: a cell that
//                  displayed large images left ipybox holding hundreds of MB while idle.
//   Darwin         nothing: its allocator returns large blocks to the system by itself.
namespace ipybox::cli {

void tune_allocator();

}  // namespace ipybox::cli
