/* The monotonic clock, the one helper every module uses to measure time. */
#ifndef SITESCOUT_COMMON_MONOTIME_H
#define SITESCOUT_COMMON_MONOTIME_H

#include <stdint.h>

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC): for intervals only. */
double monotime_s(void);

/* The same clock in milliseconds. */
int64_t monotime_ms(void);

/* And in microseconds. */
int64_t monotime_us(void);

/* CPU seconds the calling thread has used (CLOCK_THREAD_CPUTIME_ID). */
double cputime_thread_s(void);

/* CPU seconds the whole process has used, every thread's (CLOCK_PROCESS_CPUTIME_ID). */
double cputime_process_s(void);

#endif
