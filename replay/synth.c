/* Generated content for the replay web's fault hosts: an endless calendar, a huge page, junk. */
#include "replay/synth.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/hash.h"

#define TRAP_EVENTS 3          /* event links on a day page */
#define YEAR_MIN    1          /* the calendar has no day before 0001-01-01 ... */
#define YEAR_MAX    9999999    /* ... and none after 9999999-12-31: endless enough */
#define EVENT_MAX   1000000000 /* event numbers grow by one per page */

uint64_t synth_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t synth_hash64(const void *data, size_t len)
{
    return synth_mix64(hash_bytes(data, len));
}

/* ---- the calendar trap ------------------------------------------------------------------ */

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* Parse up to `max` digits at *p (at least one); 0 on failure. */
static int digits(const char **p, const char *end, int max, int64_t *out)
{
    int64_t v = 0;
    int n = 0;
    while (*p < end && **p >= '0' && **p <= '9' && n < max) {
        v = v * 10 + (**p - '0');
        (*p)++;
        n++;
    }
    *out = v;
    return n > 0;
}

static int eat(const char **p, const char *end, const char *s)
{
    size_t n = strlen(s);
    if ((size_t)(end - *p) < n || memcmp(*p, s, n) != 0)
        return 0;
    *p += n;
    return 1;
}

/* A /calendar/ path -> day number and event number (0 for a day page); 0 if not one. */
static int parse_trap_path(const char *path, size_t len, int64_t *day, int64_t *event)
{
    const char *p = path, *end = path + len;
    int64_t y, m, d;
    *event = 0;
    if (!eat(&p, end, "/calendar/") || !digits(&p, end, 7, &y) || !eat(&p, end, "-") ||
        !digits(&p, end, 2, &m) || !eat(&p, end, "-") || !digits(&p, end, 2, &d))
        return 0;
    if (y < YEAR_MIN || m < 1 || m > 12 || d < 1 || d > 31)
        return 0;
    *day = days_from_civil(y, (unsigned)m, (unsigned)d);
    int64_t cy;
    unsigned cm, cd;
    civil_from_days(*day, &cy, &cm, &cd);
    if (cy != y || (int64_t)cm != m || (int64_t)cd != d)
        return 0; /* e.g. 2003-02-30 */
    if (eat(&p, end, ".html"))
        return p == end;
    if (!eat(&p, end, "/event-") || !digits(&p, end, 9, event) || *event < 1 ||
        !eat(&p, end, ".html"))
        return 0;
    return p == end;
}

static const char *const month_names[] = {"January",   "February", "March",    "April",
                                          "May",       "June",     "July",     "August",
                                          "September", "October",  "November", "December"};
static const char *const day_names[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                        "Thursday", "Friday", "Saturday"};

static int64_t day_min(void)
{
    return days_from_civil(YEAR_MIN, 1, 1);
}

static int64_t day_max(void)
{
    return days_from_civil(YEAR_MAX, 12, 31);
}

/* Format a day as YYYY-MM-DD into s[32]. */
static void ymd(int64_t day, char *s)
{
    int64_t y;
    unsigned m, d;
    civil_from_days(day, &y, &m, &d);
    snprintf(s, 32, "%04" PRId64 "-%02u-%02u", y, m, d);
}

/* The same day of the month `months` months later (clamped to the month's length). */
static int64_t add_months(int64_t day, int months)
{
    int64_t y;
    unsigned m, d;
    civil_from_days(day, &y, &m, &d);
    int64_t mi = y * 12 + (m - 1) + months;
    int64_t ny = mi / 12;
    unsigned nm = (unsigned)(mi % 12) + 1;
    int64_t first = days_from_civil(ny, nm, 1);
    int64_t next = nm == 12 ? days_from_civil(ny + 1, 1, 1) : days_from_civil(ny, nm + 1, 1);
    unsigned len = (unsigned)(next - first);
    return first + (d > len ? len : d) - 1;
}

static enum err day_link(struct buf *out, int64_t day, int64_t event, const char *text)
{
    if (day < day_min() || day > day_max() || event > EVENT_MAX)
        return ERR_OK; /* the calendar's edge: no link */
    char s[32];
    ymd(day, s);
    if (event)
        return buf_appendf(out, "<a href=\"/calendar/%s/event-%" PRId64 ".html\">%s</a>\n", s,
                           event, text);
    return buf_appendf(out, "<a href=\"/calendar/%s.html\">%s</a>\n", s, text);
}

enum err synth_trap_page(const char *path, size_t len, struct buf *out)
{
    int64_t day, event;
    if (!parse_trap_path(path, len, &day, &event)) {
        day = days_from_civil(2004, 6, 1);
        event = 0;
    }
    int64_t y;
    unsigned m, d;
    civil_from_days(day, &y, &m, &d);
    const char *wday = day_names[((day % 7) + 7 + 4) % 7]; /* 1970-01-01 was a Thursday */
    char s[32];
    ymd(day, s);
    enum err e;
    if (event) {
        e = buf_appendf(out,
                        "<!DOCTYPE html>\n<html><head><title>Event %" PRId64 " on %s</title>"
                        "</head>\n<body>\n<h1>Event %" PRId64 "</h1>\n<p>%s, %u %s %" PRId64
                        ". Details will follow.</p>\n<p>\n",
                        event, s, event, wday, d, month_names[m - 1], y);
        if (!e)
            e = day_link(out, day, 0, "Back to the day");
        if (!e)
            e = day_link(out, day + 1, event + 1, "Next event");
    } else {
        e = buf_appendf(out,
                        "<!DOCTYPE html>\n<html><head><title>Events calendar: %s</title></head>\n"
                        "<body>\n<h1>Events on %s, %u %s %" PRId64
                        "</h1>\n<p>No events are planned for this day yet.</p>\n<p>\n",
                        s, wday, d, month_names[m - 1], y);
        for (int k = 1; k <= TRAP_EVENTS && !e; k++)
            e = day_link(out, day, k, "Event");
        if (!e)
            e = buf_append_str(out, "</p>\n<p>\n");
        if (!e)
            e = day_link(out, day - 1, 0, "Previous day");
        if (!e)
            e = day_link(out, day + 1, 0, "Next day");
        if (!e)
            e = day_link(out, add_months(day, 1), 0, "Next month");
        if (!e)
            e = day_link(out, add_months(day, 12), 0, "Next year");
    }
    if (!e)
        e = buf_append_str(out, "</p>\n</body></html>\n");
    return e;
}

/* ---- huge and junk bodies ---------------------------------------------------------------- */

static const char huge_head[] = "<!DOCTYPE html>\n<html><head><title>A very long page</title>"
                                "</head>\n<body>\n";
static const char huge_line[] = "<p>This page never seems to end. It goes on, line after line, "
                                "saying nothing new at all.</p>\n";

void synth_huge_fill(uint64_t pos, char *out, size_t n)
{
    const uint64_t hl = sizeof huge_head - 1, ll = sizeof huge_line - 1;
    for (size_t i = 0; i < n;) {
        uint64_t at = pos + i;
        const char *src;
        size_t take;
        if (at < hl) {
            src = huge_head + at;
            take = (size_t)(hl - at);
        } else {
            uint64_t k = (at - hl) % ll;
            src = huge_line + k;
            take = (size_t)(ll - k);
        }
        if (take > n - i)
            take = n - i;
        memcpy(out + i, src, take);
        i += take;
    }
}

uint64_t synth_junk_length(uint64_t seed)
{
    return SYNTH_JUNK_MIN + synth_mix64(seed ^ 0x6a756e6bULL) % (SYNTH_JUNK_MAX - SYNTH_JUNK_MIN);
}

void synth_junk_fill(uint64_t seed, uint64_t pos, char *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t at = pos + i;
        uint64_t v = synth_mix64(seed + (at >> 3) * 0x9e3779b97f4a7c15ULL);
        out[i] = (char)(v >> (8 * (at & 7)));
    }
}
