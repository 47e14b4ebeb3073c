/* `sitescout replay`'s work: archives in, the server run in the foreground, signals to stop it. */
#include "replay/replayd.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "common/log.h"
#include "common/monotime.h"
#include "replay/warc.h"
#include "replay/warcdir.h"

static struct replay_server *volatile replayd_running; /* for the signal handler */

static void replayd_on_signal(int sig)
{
    (void)sig;
    if (replayd_running)
        replay_server_stop(replayd_running);
}

/* Add path to a: a WARC file, or each WARC file of a directory (replay/warcdir.h). */
static enum err replayd_add(struct warc_archive *a, const char *path, size_t *files)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        (*files)++;
        return warc_archive_add(a, path);
    }
    char **paths;
    size_t n;
    enum err e = warcdir_list(path, &paths, &n);
    if (!e && !n)
        log_warn("replay: %s holds no .warc or .warc.gz files", path);
    for (size_t i = 0; !e && i < n; i++) {
        (*files)++;
        e = warc_archive_add(a, paths[i]);
    }
    warcdir_free(paths, n);
    return e;
}

/* Index every file into a; says on the log what was found. */
static enum err replayd_index(struct warc_archive *a, const struct replayd_opts *o)
{
    double t0 = monotime_s();
    size_t files = 0;
    for (size_t i = 0; i < o->nwarcs; i++) {
        enum err e = replayd_add(a, o->warcs[i], &files);
        if (e)
            return e;
    }
    log_info("replay: indexed %zu records on %zu hosts from %zu file(s) in %.2f s",
             warc_archive_count(a), warc_archive_hosts(a), files, monotime_s() - t0);
    if (warc_archive_duplicates(a))
        log_info("replay: %zu records repeat an earlier URL; the first one is served",
                 warc_archive_duplicates(a));
    if (!warc_archive_count(a))
        log_warn("replay: the archive has no response records to serve");
    return ERR_OK;
}

/* Serve until a signal stops the server. */
static enum err replayd_serve(struct replay_server *srv)
{
    struct sigaction sa = {.sa_handler = replayd_on_signal}; /* no SA_RESTART: wake epoll_wait */
    sigemptyset(&sa.sa_mask);
    replayd_running = srv;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    printf("listening on %s\n", replay_server_address(srv));
    fflush(stdout);

    enum err e = replay_server_run(srv);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    replayd_running = NULL;
    struct replay_stats st;
    replay_server_stats(srv, &st);
    log_info("replay: stopped after %" PRIu64 " requests on %" PRIu64 " connections", st.requests,
             st.connections);
    return e;
}

enum err replayd_run(const struct replayd_opts *o)
{
    struct warc_archive *a = warc_archive_new();
    struct replay_server *srv = NULL;
    enum err e;
    if (!a) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    if ((e = replayd_index(a, o)))
        goto out;
    if ((e = replay_server_new(&o->cfg, a, &srv)))
        goto out;
    e = replayd_serve(srv);
out:
    replay_server_free(srv);
    warc_archive_free(a);
    return e;
}
