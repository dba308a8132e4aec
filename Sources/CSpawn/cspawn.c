#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <unistd.h>

#include "cspawn.h"

int cspawn_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int cspawn_addclosefrom(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

static volatile sig_atomic_t stop_signal_fd = -1;

static void on_stop_signal(int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    if (stop_signal_fd >= 0) (void)write(stop_signal_fd, &byte, 1);
    errno = saved;
}

int cspawn_unblock_stop_signals(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

int cspawn_catch_stop_signals(int fd) {
    stop_signal_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    if (sigaction(SIGINT, &action, NULL) != 0) return -1;
    return sigaction(SIGTERM, &action, NULL);
}
