#pragma once
// Ending with the parent process (`ipybox sdk --parent-pid`): the SDK server stops when the
// Python that started it ends, even when a process that Python forked keeps the server's stdin
// open. The end is SIGTERM to this process, which the server takes as an orderly shutdown, as
// it takes one from anyone else. Issue 39's platform layer:
//   linux/   prctl(PR_SET_PDEATHSIG, SIGTERM): the kernel sends it when the parent ends
//   darwin/  one thread waits on a kqueue for the parent's exit (EVFILT_PROC, NOTE_EXIT)
//   posix/   one thread reads getppid() every 200 ms; a changed parent means it ended (the
//            process was handed to init or a subreaper), seen up to 200 ms late
// The threads live as long as the process and only send the signal; nothing else runs on them.
namespace ipybox::cli {

// Arranges SIGTERM when `parent_pid`, this process's parent, ends. Returns false, arranging
// nothing, when the parent is not `parent_pid` (gone already, or never was). A watch the system
// refuses (no kqueue, no thread) is logged as a warning: the server then ends only at the end
// of its stdin. Call once. Never throws.
bool end_with_parent(int parent_pid);

}  // namespace ipybox::cli
