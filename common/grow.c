/* Growing a malloc'd array by doubling. */
#include "common/grow.h"

#include <stdint.h>
#include <stdlib.h>

enum err grow_array(void **arr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return ERR_OK;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    if (size && n > SIZE_MAX / size)
        return err_set(ERR_NOMEM, "out of memory");
    void *p = realloc(*arr, n * size);
    if (!p)
        return err_set(ERR_NOMEM, "out of memory");
    *arr = p;
    *cap = n;
    return ERR_OK;
}
