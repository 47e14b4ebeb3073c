/* The embedded PostgreSQL cluster: initdb, start/stop, crash recovery, as `postgres` when root. */
#include "store/pgembed.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/num.h"
#include "store/store.h"

#define SOCKET_PATH_MAX 107 /* sizeof(sun_path) - 1 */

static char *path_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", a, b);
    return p;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static unsigned long pgembed_hash_str(const char *s)
{
    unsigned long h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

/* Highest /usr/lib/postgresql/N/bin that has pg_ctl, else NULL (use $PATH). */
static char *find_bin_dir(void)
{
    const char *env = getenv("SITESCOUT_PG_BIN");
    if (env && *env)
        return strdup(env);
    DIR *d = opendir("/usr/lib/postgresql");
    if (!d)
        return NULL;
    long best = -1;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int64_t n;
        if (!num_parse_i64(de->d_name, LONG_MIN, LONG_MAX, &n))
            continue;
        long v = (long)n;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "/usr/lib/postgresql/%ld/bin/pg_ctl", v);
        if (v > best && access(path, X_OK) == 0)
            best = v;
    }
    closedir(d);
    if (best < 0)
        return NULL;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "/usr/lib/postgresql/%ld/bin", best);
    return strdup(path);
}

/* The account the server runs as: `postgres` when we are root, else ourselves. */
static enum err server_account(uid_t *uid, gid_t *gid, int *switch_user)
{
    *switch_user = geteuid() == 0;
    if (!*switch_user) {
        *uid = geteuid();
        *gid = getegid();
        return ERR_OK;
    }
    struct passwd *pw = getpwnam("postgres");
    if (!pw)
        return err_set(ERR_NOTFOUND, "running as root, but there is no 'postgres' user to run "
                                     "PostgreSQL as (install the postgresql package)");
    *uid = pw->pw_uid;
    *gid = pw->pw_gid;
    return ERR_OK;
}

static void become(uid_t uid, gid_t gid)
{
    if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
        fprintf(stderr, "sitescout: cannot switch to uid %d: %s\n", (int)uid, strerror(errno));
        _exit(127);
    }
}

/*
 * Run argv (argv[0] a path) as the server account, stdout+stderr appended to
 * out_file (or /dev/null). Returns the exit status, or -1 if it could not run.
 */
static int run_as_server(char *const argv[], const char *out_file)
{
    uid_t uid = 0;
    gid_t gid = 0;
    int sw;
    if (server_account(&uid, &gid, &sw) != ERR_OK)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (sw)
            become(uid, gid);
        int fd = open(out_file ? out_file : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0) {
            dup2(nul, 0);
            close(nul);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Can the server account reach dir? (It may not get into a root-only home.) */
static int server_can_enter(const char *dir)
{
    uid_t uid = 0;
    gid_t gid = 0;
    int sw;
    if (server_account(&uid, &gid, &sw) != ERR_OK)
        return 0;
    if (!sw)
        return access(dir, X_OK) == 0;
    pid_t pid = fork();
    if (pid < 0)
        return 0;
    if (pid == 0) {
        become(uid, gid);
        _exit(access(dir, X_OK) == 0 ? 0 : 1);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static enum err mkdir_p(const char *path, mode_t mode)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return err_set(ERR_INVAL, "path too long: %s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return err_set(ERR_IO, "cannot create directory %s: %s", tmp, strerror(errno));
        *p = '/';
    }
    if (mkdir(tmp, mode) != 0 && errno != EEXIST)
        return err_set(ERR_IO, "cannot create directory %s: %s", tmp, strerror(errno));
    return ERR_OK;
}

/* Create dir and hand it to the server account. */
static enum err make_server_dir(const char *dir, mode_t mode)
{
    enum err e = mkdir_p(dir, mode);
    if (e)
        return e;
    uid_t uid = 0;
    gid_t gid = 0;
    int sw;
    e = server_account(&uid, &gid, &sw);
    if (e)
        return e;
    if (sw && chown(dir, uid, gid) != 0)
        return err_set(ERR_IO, "cannot hand %s to the postgres user: %s", dir, strerror(errno));
    return ERR_OK;
}

enum err pgembed_init(struct pgembed *pg, const char *base_dir, int port, int tcp)
{
    memset(pg, 0, sizeof *pg);
    pg->port = port > 0 ? port : PGEMBED_DEFAULT_PORT;
    pg->tcp = tcp;
    /* Absolute: pg_ctl and the server run in other directories (a relative --data-dir
     * named another place for them), and the URL's socket path must hold anywhere. */
    char cwd[PATH_MAX];
    if (base_dir[0] != '/' && !getcwd(cwd, sizeof cwd))
        return err_set(ERR_IO, "cannot tell the current directory: %s", strerror(errno));
    pg->base_dir = base_dir[0] == '/' ? strdup(base_dir) : path_join(cwd, base_dir);
    if (!pg->base_dir)
        return err_set(ERR_NOMEM, "out of memory");

    /*
     * As root, the cluster belongs to `postgres`, who may not be able to reach a
     * checkout under a private home directory. Then keep it under /var/lib instead.
     */
    if (geteuid() == 0) {
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%s", base_dir);
        char *slash = strrchr(parent, '/');
        if (slash && slash != parent)
            *slash = '\0';
        if (mkdir_p(parent, 0755) == ERR_OK && !file_exists(base_dir) &&
            !server_can_enter(parent)) {
            char alt[PATH_MAX];
            snprintf(alt, sizeof alt, "/var/lib/sitescout/pg-%lx", pgembed_hash_str(base_dir));
            log_info("the postgres user cannot reach %s; keeping the cluster in %s", base_dir, alt);
            free(pg->base_dir);
            pg->base_dir = strdup(alt);
        }
    }
    pg->data_dir = path_join(pg->base_dir, "data");
    pg->run_dir = path_join(pg->base_dir, "run");
    pg->log_file = path_join(pg->base_dir, "postgres.log");
    pg->bin_dir = find_bin_dir();
    if (!pg->base_dir || !pg->data_dir || !pg->run_dir || !pg->log_file) {
        pgembed_release(pg);
        return err_set(ERR_NOMEM, "out of memory");
    }
    if (strlen(pg->run_dir) + sizeof "/.s.PGSQL.65535" > SOCKET_PATH_MAX) {
        /* A unix socket path must fit in sun_path; fall back to a short one. */
        char alt[64];
        snprintf(alt, sizeof alt, "/tmp/sitescout-%lx", pgembed_hash_str(pg->base_dir));
        free(pg->run_dir);
        pg->run_dir = strdup(alt);
        if (!pg->run_dir) {
            pgembed_release(pg);
            return err_set(ERR_NOMEM, "out of memory");
        }
    }
    return ERR_OK;
}

void pgembed_release(struct pgembed *pg)
{
    if (!pg)
        return;
    free(pg->base_dir);
    free(pg->data_dir);
    free(pg->run_dir);
    free(pg->log_file);
    free(pg->bin_dir);
    memset(pg, 0, sizeof *pg);
}

static void tool_path(const struct pgembed *pg, const char *tool, char *out, size_t n)
{
    if (pg->bin_dir)
        snprintf(out, n, "%s/%s", pg->bin_dir, tool);
    else
        snprintf(out, n, "%s", tool);
}

/* libpq URI with the socket directory percent-encoded into the query. */
static char *make_url(const struct pgembed *pg, const char *dbname)
{
    struct buf b;
    buf_init(&b, 0);
    enum err e = buf_appendf(&b, "postgresql://%s@/%s?host=", PGEMBED_USER, dbname);
    for (const char *s = pg->run_dir; !e && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            strchr("/-._~", c))
            e = buf_append_char(&b, (char)c);
        else
            e = buf_appendf(&b, "%%%02X", c);
    }
    if (!e)
        e = buf_appendf(&b, "&port=%d", pg->port);
    if (e) {
        buf_release(&b);
        return NULL;
    }
    return buf_detach(&b);
}

char *pgembed_url(const struct pgembed *pg)
{
    return make_url(pg, PGEMBED_DBNAME);
}

/* The pid on the first line of a PostgreSQL lock file, or 0. */
static long read_lock_pid(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    long pid = 0;
    if (fscanf(f, "%ld", &pid) != 1)
        pid = 0;
    fclose(f);
    return pid;
}

/* The pid in data/postmaster.pid, or 0. */
static long read_pid_file(const struct pgembed *pg)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/postmaster.pid", pg->data_dir);
    return read_lock_pid(path);
}

/* Is pid a zombie? A killed server is one until its parent reaps it, which may be never. */
static int is_zombie(long pid)
{
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *close_paren = strrchr(stat, ')'); /* the name may contain spaces */
    return close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z';
}

/* Is pid a live process named postgres? */
static int is_postgres_process(long pid)
{
    if (pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH) || is_zombie(pid))
        return 0;
    char path[64], comm[64] = "";
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1; /* cannot tell: assume it is */
    if (!fgets(comm, sizeof comm, f))
        comm[0] = '\0';
    fclose(f);
    return strncmp(comm, "postgres", 8) == 0;
}

/*
 * A server killed with -9 leaves postmaster.pid and the socket's lock file behind;
 * PostgreSQL refuses to start while they name a live process, and a zombie or a
 * recycled pid counts as live to it. Remove those that name no live server.
 */
static void remove_stale_locks(const struct pgembed *pg)
{
    char paths[2][PATH_MAX];
    snprintf(paths[0], sizeof paths[0], "%s/postmaster.pid", pg->data_dir);
    snprintf(paths[1], sizeof paths[1], "%s/.s.PGSQL.%d.lock", pg->run_dir, pg->port);
    for (int i = 0; i < 2; i++) {
        long pid = read_lock_pid(paths[i]);
        if (!pid || is_postgres_process(pid))
            continue;
        log_warn("removing %s, left behind by PostgreSQL process %ld", paths[i], pid);
        char *argv[] = {"rm", "-f", paths[i], NULL};
        (void)run_as_server(argv, NULL);
    }
}

enum err pgembed_status(const struct pgembed *pg, long *pid)
{
    *pid = 0;
    char *url = make_url(pg, "postgres");
    if (!url)
        return err_set(ERR_NOMEM, "out of memory");
    int up = store_ping(url);
    free(url);
    if (up) {
        long p = read_pid_file(pg);
        *pid = p > 0 ? p : 1;
    }
    return ERR_OK;
}

/* Kill server processes left behind by a crashed postmaster: they keep our data dir as cwd. */
static void kill_orphans(const struct pgembed *pg)
{
    char want[PATH_MAX];
    if (!realpath(pg->data_dir, want))
        return;
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int64_t id;
        if (!num_parse_i64(de->d_name, LONG_MIN, LONG_MAX, &id))
            continue;
        long pid = (long)id;
        if (!is_postgres_process(pid))
            continue;
        char link[64], cwd[PATH_MAX];
        snprintf(link, sizeof link, "/proc/%ld/cwd", pid);
        ssize_t n = readlink(link, cwd, sizeof cwd - 1);
        if (n <= 0)
            continue;
        cwd[n] = '\0';
        if (strcmp(cwd, want) == 0) {
            log_warn("killing leftover PostgreSQL process %ld of a crashed cluster", pid);
            kill((pid_t)pid, SIGKILL);
        }
    }
    closedir(d);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static enum err write_conf(const struct pgembed *pg)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/sitescout.conf", pg->data_dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
    fprintf(f,
            "# Written by sitescout at every start: edit postgresql.conf for lasting changes.\n"
            "port = %d\n"
            "unix_socket_directories = '%s'\n"
            "listen_addresses = '%s'\n",
            pg->port, pg->run_dir, pg->tcp ? "127.0.0.1" : "");
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return err_set(ERR_IO, "cannot write %s", path);
    uid_t uid = 0;
    gid_t gid = 0;
    int sw;
    if (server_account(&uid, &gid, &sw) == ERR_OK && sw && chown(path, uid, gid) != 0)
        return err_set(ERR_IO, "cannot hand %s to the postgres user: %s", path, strerror(errno));
    return ERR_OK;
}

static enum err run_initdb(const struct pgembed *pg)
{
    char initdb[PATH_MAX];
    tool_path(pg, "initdb", initdb, sizeof initdb);
    log_info("creating a PostgreSQL cluster in %s", pg->data_dir);
    char *argv[] = {initdb,  "-D", pg->data_dir, "-U",          PGEMBED_USER, "-A",
                    "trust", "-E", "UTF8",       "--no-locale", "--no-sync",  NULL};
    int rc = run_as_server(argv, pg->log_file);
    if (rc != 0)
        return err_set(ERR_IO, "initdb failed (exit %d): see %s", rc, pg->log_file);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/postgresql.conf", pg->data_dir);
    FILE *f = fopen(path, "a");
    if (!f)
        return err_set(ERR_IO, "cannot append to %s: %s", path, strerror(errno));
    /* Commit latency matters more than the last few ms of commits after an OS crash. */
    fprintf(f, "\n# sitescout\nsynchronous_commit = off\nmax_connections = 200\n"
               "include_if_exists = 'sitescout.conf'\n");
    fclose(f);
    return ERR_OK;
}

static enum err start_locked(struct pgembed *pg)
{
    char version_file[PATH_MAX];
    snprintf(version_file, sizeof version_file, "%s/PG_VERSION", pg->data_dir);
    long pid;
    enum err e = pgembed_status(pg, &pid);
    if (e || pid)
        return e;

    if (!file_exists(version_file)) {
        if (file_exists(pg->data_dir)) {
            /* A half-made cluster (initdb interrupted): start it over. */
            char *argv[] = {"rm", "-rf", pg->data_dir, NULL};
            if (run_as_server(argv, NULL) != 0)
                return err_set(ERR_IO, "cannot remove the incomplete cluster in %s", pg->data_dir);
        }
        e = run_initdb(pg);
        if (e)
            return e;
    } else if (access(pg->data_dir, W_OK) != 0 && geteuid() != 0) {
        return err_set(ERR_IO,
                       "the cluster in %s belongs to another user: start it as that user "
                       "or as root",
                       pg->data_dir);
    }

    e = make_server_dir(pg->run_dir, 0755);
    if (e)
        return e;
    e = write_conf(pg);
    if (e)
        return e;

    remove_stale_locks(pg);

    char pg_ctl[PATH_MAX];
    tool_path(pg, "pg_ctl", pg_ctl, sizeof pg_ctl);
    char *argv[] = {pg_ctl, "-D", pg->data_dir, "-l",    pg->log_file,
                    "-w",   "-t", "120",        "start", NULL};
    for (int attempt = 0; attempt < 3; attempt++) {
        int rc = run_as_server(argv, NULL);
        if (rc == 0)
            break;
        if (attempt == 2)
            return err_set(ERR_IO, "PostgreSQL did not start (pg_ctl exit %d): see %s", rc,
                           pg->log_file);
        /* Most often: processes of a killed server still hold the shared memory. */
        kill_orphans(pg);
        sleep_ms(500);
        remove_stale_locks(pg);
    }

    char *admin = make_url(pg, "postgres");
    if (!admin)
        return err_set(ERR_NOMEM, "out of memory");
    e = store_create_database(admin, PGEMBED_DBNAME);
    free(admin);
    return e;
}

enum err pgembed_start(struct pgembed *pg)
{
    enum err e = make_server_dir(pg->base_dir, 0755);
    if (e)
        return e;
    char lock_path[PATH_MAX];
    snprintf(lock_path, sizeof lock_path, "%s/lock", pg->base_dir);
    int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return err_set(ERR_IO, "cannot open %s: %s", lock_path, strerror(errno));
    if (flock(fd, LOCK_EX) != 0) {
        close(fd);
        return err_set(ERR_IO, "cannot lock %s: %s", lock_path, strerror(errno));
    }
    e = start_locked(pg);
    close(fd); /* releases the lock */
    return e;
}

enum err pgembed_stop(struct pgembed *pg)
{
    char version_file[PATH_MAX];
    snprintf(version_file, sizeof version_file, "%s/PG_VERSION", pg->data_dir);
    if (!file_exists(version_file) && !file_exists(pg->data_dir))
        return ERR_OK;
    long pid = read_pid_file(pg);
    if (!pid || !is_postgres_process(pid)) {
        kill_orphans(pg);
        return ERR_OK;
    }
    char pg_ctl[PATH_MAX];
    tool_path(pg, "pg_ctl", pg_ctl, sizeof pg_ctl);
    char *argv[] = {pg_ctl, "-D", pg->data_dir, "-m", "fast", "-w", "-t", "60", "stop", NULL};
    int rc = run_as_server(argv, pg->log_file);
    if (rc != 0)
        return err_set(ERR_IO, "pg_ctl stop failed (exit %d): see %s", rc, pg->log_file);
    return ERR_OK;
}
