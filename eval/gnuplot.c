/* Running gnuplot on a script as a child process, and quoting strings for its scripts. */
#include "eval/gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "common/buf.h"

extern char **environ;

void gnuplot_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        if (*s != '\n')
            fputc(*s, f);
    }
    fputc('\'', f);
}

enum err gnuplot_run(const char *dir, const char *name)
{
    struct buf script, png;
    buf_init(&script, 0);
    buf_init(&png, 0);
    enum err e = buf_appendf(&script, "%s.gp", name);
    if (e)
        goto out;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addchdir_np(&fa, dir);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "gnuplot.log", O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    char *argv[] = {"gnuplot", (char *)buf_str(&script), NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc == ENOENT) {
        e = err_set(ERR_NOTFOUND, "gnuplot is not installed (Debian package gnuplot-nox)");
        goto out;
    }
    if (rc != 0) {
        e = err_set(ERR_IO, "cannot run gnuplot: %s", strerror(rc));
        goto out;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            e = err_set(ERR_IO, "waiting for gnuplot: %s", strerror(errno));
            goto out;
        }
    }
    /* posix_spawnp reports a missing program as exit 127 when it cannot tell earlier. */
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        e = err_set(ERR_NOTFOUND, "gnuplot is not installed (Debian package gnuplot-nox)");
        goto out;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        e = err_set(ERR_IO, "gnuplot failed on %s/%s (see %s/gnuplot.log)", dir, buf_str(&script),
                    dir);
        goto out;
    }
    struct stat st;
    e = buf_appendf(&png, "%s/%s.png", dir, name);
    if (!e && (stat(buf_str(&png), &st) != 0 || st.st_size == 0))
        e = err_set(ERR_IO, "gnuplot wrote no %s", buf_str(&png));
out:
    buf_release(&script);
    buf_release(&png);
    return e;
}
