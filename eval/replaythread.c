/* A replay server of one WARC file, served by a thread of its own. */
#include "eval/replaythread.h"

#include <stdio.h>
#include <string.h>

#include "replay/replay.h"
#include "replay/warc.h"

static void *replaythread_main(void *arg)
{
    struct replaythread *rt = arg;
    rt->rc = replay_server_run(rt->srv);
    return NULL;
}

enum err replaythread_start(struct replaythread *rt, const char *warc)
{
    rt->archive = warc_archive_new();
    if (!rt->archive)
        return err_set(ERR_NOMEM, "out of memory");
    enum err e = warc_archive_add(rt->archive, warc);
    if (e)
        return e;
    struct replay_config cfg = {.listen = "127.0.0.1:0", .seed = 1};
    e = replay_server_new(&cfg, rt->archive, &rt->srv);
    if (e)
        return e;
    snprintf(rt->proxy, sizeof rt->proxy, "http://%s", replay_server_address(rt->srv));
    int rc = pthread_create(&rt->thread, NULL, replaythread_main, rt);
    if (rc)
        return err_set(ERR_IO, "cannot start the replay thread: %s", strerror(rc));
    rt->running = 1;
    return ERR_OK;
}

void replaythread_stop(struct replaythread *rt)
{
    if (rt->running) {
        replay_server_stop(rt->srv);
        pthread_join(rt->thread, NULL);
        rt->running = 0;
    }
    replay_server_free(rt->srv);
    warc_archive_free(rt->archive);
    rt->srv = NULL;
    rt->archive = NULL;
}
