// What FlowProcess needs of glibc that its Swift module does not show without _GNU_SOURCE.
#ifndef FLOWRUN_CSPAWN_H
#define FLOWRUN_CSPAWN_H

#include <spawn.h>

/// pipe2(fds, O_CLOEXEC): both ends close-on-exec from the start, so no other thread's child inherits them.
int cspawn_pipe_cloexec(int fds[2]);

/// Asks posix_spawn to close every descriptor from `lowest` up in the child (glibc 2.34 and later), so a child
/// holds nothing of its parent's but what it is given.
int cspawn_addclosefrom(posix_spawn_file_actions_t *actions, int lowest);

/// Catches SIGINT and SIGTERM with a handler that writes the signal's number, one byte, to `fd` (a pipe's
/// non-blocking write end): whichever thread the kernel picks, the signal reaches the reader. Returns 0, or -1 with
/// errno. (A dispatch signal source with the signal ignored loses a signal delivered to a thread that does not
/// block it; a handler cannot.)
int cspawn_catch_stop_signals(int fd);

/// Unblocks SIGINT and SIGTERM in the calling thread. The threads of Swift's pool (libdispatch's workers) block
/// them, and so does every thread started from one; with no thread that takes them, a signal stays pending for
/// ever. The thread that reads the handler's pipe calls this, so there is always one.
int cspawn_unblock_stop_signals(void);

#endif
