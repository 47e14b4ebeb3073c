/* Opening, closing and number formatting for the files of an experiment's output directory. */
#include "eval/reportio.h"

#include <errno.h>
#include <math.h>
#include <string.h>

enum err reportio_path(struct buf *path, const char *dir, const char *name)
{
    buf_reset(path);
    return buf_appendf(path, "%s/%s", dir, name);
}

enum err reportio_open(struct buf *path, const char *dir, const char *name, FILE **f)
{
    enum err e = reportio_path(path, dir, name);
    if (e)
        return e;
    *f = fopen(buf_str(path), "w");
    if (!*f)
        return err_set(ERR_IO, "cannot write %s: %s", buf_str(path), strerror(errno));
    return ERR_OK;
}

enum err reportio_close(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return ERR_OK;
}

const char *reportio_num(char *b, size_t n, double v, int decimals, const char *undef)
{
    if (!isfinite(v))
        return undef;
    snprintf(b, n, "%.*f", decimals, v);
    return b;
}
