/* Growing a malloc'd array by doubling: the one place this is written. */
#ifndef SITESCOUT_COMMON_GROW_H
#define SITESCOUT_COMMON_GROW_H

#include <stddef.h>

#include "common/err.h"

/*
 * Make room for `need` elements of `size` bytes in *arr (capacity *cap): at least
 * double, starting at 16. *arr and *cap change only on success; ERR_NOMEM otherwise.
 */
enum err grow_array(void **arr, size_t *cap, size_t need, size_t size) WARN_UNUSED;

#endif
