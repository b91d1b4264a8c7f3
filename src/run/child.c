/* child.c - the job's process and its output (child.h). */
#include "child.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include "util.h"

int child_wants_pty(void)
{
    return isatty(STDOUT_FILENO) && isatty(STDERR_FILENO);
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* our output is gone (closed pipe): the job goes on */
        p += w;
        n -= (size_t)w;
    }
}

/* In the child, after fork: only async-signal-safe calls. The job leads a session of its own (so
 * its whole process tree is one group to signal, and no terminal signal reaches it twice), and
 * inherits the descriptors in keep (the GPUs' locks: they stay held while any of its processes lives). */
static void child_exec(char *const *argv, const run_binding *b, const sigset_t *mask, pid_t parent, int slave,
                       int out_w, int err_w, int status_w, const int *keep, int nkeep)
{
    int e = 0;
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
        _exit(1);
    if (setsid() < 0)
        goto fail;
    for (int i = 0; i < nkeep; i++)
        if (keep[i] >= 0 && fcntl(keep[i], F_SETFD, 0) != 0)
            goto fail;
    if (slave >= 0) {
        if (dup2(slave, STDOUT_FILENO) < 0 || dup2(slave, STDERR_FILENO) < 0)
            goto fail;
        close(slave);
    } else {
        if (dup2(out_w, STDOUT_FILENO) < 0 || dup2(err_w, STDERR_FILENO) < 0)
            goto fail;
        close(out_w);
        close(err_w);
    }
    if (host_apply_binding(b) != 0)
        goto fail;
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, mask, NULL);
    execvp(argv[0], argv);
fail:
    e = errno;
    if (write(status_w, &e, sizeof e) < 0) {
        /* the parent sees EOF and a failed exit status anyway */
    }
    _exit(e == ENOENT ? 127 : 126);
}

/* The guard: a process of ours that outlives us only to end the job. When gpuwatch run dies without
 * a word (kill -9), the pipe's end comes with no byte and the job's whole process group gets SIGTERM,
 * as the job itself does (PR_SET_PDEATHSIG). It leads a session of its own (no terminal signal
 * reaches it) and holds no descriptor of ours but the pipe (no lock, no output). We may have
 * threads: only async-signal-safe calls after fork. Returns its pid with *fd its pipe, or -1. */
static pid_t start_guard(pid_t job, int *fd)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid_t g = fork();
    if (g < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (g == 0) {
        setsid();
        if (p[0] > 0)
            close_range(0, (unsigned)p[0] - 1, 0);
        close_range((unsigned)p[0] + 1, ~0u, 0);
        char byte;
        ssize_t r;
        do
            r = read(p[0], &byte, 1);
        while (r < 0 && errno == EINTR);
        if (r <= 0)
            kill(-job, SIGTERM);
        _exit(0);
    }
    close(p[0]);
    *fd = p[1];
    return g;
}

/* Tells the guard that we end in order, and reaps it. */
static void stop_guard(run_child *c)
{
    if (c->guard <= 0)
        return;
    if (write(c->guard_fd, "x", 1) != 1) {
        /* the guard is gone already */
    }
    close(c->guard_fd);
    waitpid(c->guard, NULL, 0);
    c->guard = 0;
    c->guard_fd = -1;
}

int child_start(run_child *c, char *const *argv, const run_binding *b, const sigset_t *mask, const int *keep, int nkeep,
                char *err, size_t n)
{
    memset(c, 0, sizeof *c);
    c->out_fd = c->err_fd = c->guard_fd = -1;
    c->use_pty = child_wants_pty();
    int slave = -1, out_p[2] = {-1, -1}, err_p[2] = {-1, -1}, st_p[2] = {-1, -1};
    if (pipe2(st_p, O_CLOEXEC) != 0)
        goto sys_fail;
    if (c->use_pty) {
        int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0) {
            if (m >= 0)
                close(m);
            goto sys_fail;
        }
        c->out_fd = m;
        slave = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (slave < 0)
            goto sys_fail;
        struct termios t;
        if (tcgetattr(slave, &t) == 0) {
            t.c_oflag &= ~(tcflag_t)ONLCR; /* bytes through unchanged: our terminal translates */
            tcsetattr(slave, TCSANOW, &t);
        }
        struct winsize ws;
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0)
            ioctl(slave, TIOCSWINSZ, &ws);
    } else {
        if (pipe2(out_p, O_CLOEXEC) != 0 || pipe2(err_p, O_CLOEXEC) != 0)
            goto sys_fail;
        c->out_fd = out_p[0];
        c->err_fd = err_p[0];
    }
    pid_t parent = getpid();
    c->pid = fork();
    if (c->pid < 0)
        goto sys_fail;
    if (c->pid == 0)
        child_exec(argv, b, mask, parent, slave, out_p[1], err_p[1], st_p[1], keep, nkeep);
    if (slave >= 0)
        close(slave);
    if (out_p[1] >= 0)
        close(out_p[1]);
    if (err_p[1] >= 0)
        close(err_p[1]);
    close(st_p[1]);
    int e = 0;
    ssize_t r;
    do
        r = read(st_p[0], &e, sizeof e);
    while (r < 0 && errno == EINTR);
    close(st_p[0]);
    if (r == (ssize_t)sizeof e) {
        waitpid(c->pid, NULL, 0);
        snprintf(err, n, "%s: %s", argv[0], strerror(e));
        if (c->out_fd >= 0)
            close(c->out_fd);
        if (c->err_fd >= 0)
            close(c->err_fd);
        c->out_fd = c->err_fd = -1;
        c->pid = 0;
        return e == ENOENT ? 127 : 126;
    }
    c->guard = start_guard(c->pid, &c->guard_fd); /* without it, kill -9 of run ends the job's leader only */
    return 0;
sys_fail:
    snprintf(err, n, "cannot start the job: %s", strerror(errno));
    for (int i = 0; i < 2; i++) {
        if (out_p[i] >= 0)
            close(out_p[i]);
        if (err_p[i] >= 0)
            close(err_p[i]);
        if (st_p[i] >= 0)
            close(st_p[i]);
    }
    if (slave >= 0)
        close(slave);
    if (c->use_pty && c->out_fd >= 0)
        close(c->out_fd);
    c->out_fd = c->err_fd = -1;
    return 1;
}

/* Reads what one fd has; -1 at its end. */
static int pump(int fd, int to, int stream, step_parser *sp)
{
    char buf[65536];
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (r <= 0)
        return -1; /* EOF, or EIO: the pty's last writer is gone */
    int64_t t = (int64_t)gw_now_us();
    write_all(to, buf, (size_t)r);
    if (sp)
        steps_feed(sp, stream, t, buf, (size_t)r);
    return 0;
}

/* Every signal passed reaches the job's whole process group (its session: the job leads it). */
static void pass_signal(run_child *c, const struct signalfd_siginfo *si)
{
    int sig = (int)si->ssi_signo;
    if (sig == SIGWINCH) {
        struct winsize ws;
        if (c->use_pty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0)
            ioctl(c->out_fd, TIOCSWINSZ, &ws);
    }
    if (sig == SIGTSTP) {
        /* Ctrl-Z: the job stops with us (a stop signal other than SIGSTOP is discarded by a group with
         * no parent in its session, which the job's is), and goes on when we are continued */
        kill(-c->pid, SIGSTOP);
        raise(SIGSTOP);
        return;
    }
    kill(-c->pid, sig);
}

int child_relay(run_child *c, int sigfd, step_parser *sp)
{
    int status = 0, exited = 0;
    uint64_t drain_until = 0;
    for (;;) {
        struct pollfd p[3];
        int np = 0, i_out = -1, i_err = -1;
        p[np++] = (struct pollfd){.fd = sigfd, .events = POLLIN};
        if (c->out_fd >= 0) {
            i_out = np;
            p[np++] = (struct pollfd){.fd = c->out_fd, .events = POLLIN};
        }
        if (c->err_fd >= 0) {
            i_err = np;
            p[np++] = (struct pollfd){.fd = c->err_fd, .events = POLLIN};
        }
        if (exited && np == 1)
            break;
        int timeout = 250; /* a SIGCHLD taken elsewhere must not hang us: waitpid below */
        if (exited) {
            uint64_t now = gw_mono_us();
            if (now >= drain_until)
                break; /* a process the job left behind holds its output open */
            timeout = (int)((drain_until - now) / 1000) + 1;
        }
        int r = poll(p, (nfds_t)np, timeout);
        if (r < 0 && errno != EINTR)
            break;
        if (r == 0 && !exited && waitpid(c->pid, &status, WNOHANG) == c->pid) {
            exited = 1;
            drain_until = gw_mono_us() + 500000;
        }
        if (r <= 0)
            continue;
        if (i_out >= 0 && p[i_out].revents && pump(c->out_fd, STDOUT_FILENO, 0, sp) != 0) {
            close(c->out_fd);
            c->out_fd = -1;
        }
        if (i_err >= 0 && p[i_err].revents && pump(c->err_fd, STDERR_FILENO, 1, sp) != 0) {
            close(c->err_fd);
            c->err_fd = -1;
        }
        if (p[0].revents & POLLIN) {
            struct signalfd_siginfo si;
            while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
                if (si.ssi_signo != SIGCHLD)
                    pass_signal(c, &si);
            }
            if (!exited && waitpid(c->pid, &status, WNOHANG) == c->pid) {
                exited = 1;
                drain_until = gw_mono_us() + 500000;
            }
        }
    }
    if (!exited)
        waitpid(c->pid, &status, 0);
    stop_guard(c);
    if (c->out_fd >= 0)
        close(c->out_fd);
    if (c->err_fd >= 0)
        close(c->err_fd);
    c->out_fd = c->err_fd = -1;
    if (sp)
        steps_finish(sp);
    return status;
}
