#define _POSIX_C_SOURCE 200809L
/* The command that resumes a run (hs_resume_cmd.h): every word of it shell-quoted; under mpirun,
 * the launcher's own words in front. */
#include "hs_resume_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *hs_shell_quote(const char *word, char *buf, size_t size)
{
    if (!size) return buf;
    /* characters no POSIX shell treats specially anywhere in a word */
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:,+@%";
    size_t n = strlen(word);
    if (n && strspn(word, safe) == n) {
        snprintf(buf, size, "%s", word);
        return buf;
    }
    size_t o = 0;
    buf[o++] = '\'';
    for (const char *p = word; *p && o + 5 < size; ++p) {
        if (*p == '\'') {
            memcpy(buf + o, "'\\''", 4);
            o += 4;
        } else {
            buf[o++] = *p;
        }
    }
    if (o + 1 < size) buf[o++] = '\'';
    buf[o < size ? o : size - 1] = '\0';
    return buf;
}

/* appends " WORD" (quoted) to buf at *o; -1 when it does not fit */
static int append(char *buf, size_t size, size_t *o, const char *word, int quote)
{
    char q[8192];
    const char *w = quote ? hs_shell_quote(word, q, sizeof q) : word;
    int n = snprintf(buf + *o, size - *o, "%s%s", *o ? " " : "", w);
    if (n < 0 || (size_t)n >= size - *o) return -1;
    *o += (size_t)n;
    return 0;
}

int hs_resume_command(const char *prog, const char *config, const char *const *sets, int n_sets,
                      const char *out_dir, char *buf, size_t size)
{
    size_t o = 0;
    if (!size) return -1;
    buf[0] = '\0';
    int bad = append(buf, size, &o, prog && *prog ? prog : "heartsim", 1);
    bad |= append(buf, size, &o, "run", 0);
    bad |= append(buf, size, &o, config, 1);
    for (int i = 0; i < n_sets; ++i) {
        if (!strncmp(sets[i], "output.dir=", 11) || !strncmp(sets[i], "output.dir =", 12)) continue;
        bad |= append(buf, size, &o, "--set", 0);
        bad |= append(buf, size, &o, sets[i], 1);
    }
    bad |= append(buf, size, &o, "--out", 0);
    bad |= append(buf, size, &o, out_dir, 1);
    return bad ? -1 : 0;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

int hs_resume_with_launcher(const char *const *launcher, int n, const char *prog, const char *fallback, char *cmd,
                            size_t size, char *note, size_t note_size)
{
    if (note_size) note[0] = '\0';
    int k = -1; /* launcher[k] is the program: the launcher's own words are those before it */
    for (int i = 1; launcher && i < n && k < 0; ++i)
        if (!strcmp(launcher[i], prog) || !strcmp(base_name(launcher[i]), base_name(prog))) k = i;
    char pre[8192];
    size_t o = 0;
    int bad = 0;
    pre[0] = '\0';
    if (k > 0) {
        for (int i = 0; i < k; ++i) bad |= append(pre, sizeof pre, &o, launcher[i], 1);
    } else {
        bad |= append(pre, sizeof pre, &o, fallback, 0);
        if (note_size)
            snprintf(note, note_size,
                     "the resume command starts with \"%s\": heartsim could not read how its launcher was started "
                     "(it reads the argv of its mpirun/mpiexec/orterun/prterun parent process, on Linux); add "
                     "the other launcher options this run was given (e.g. --hostfile FILE, --bind-to ...), as "
                     "you gave them", fallback);
    }
    const size_t lc = strlen(cmd);
    if (bad || o + 1 + lc + 1 > size) return -1;
    memmove(cmd + o + 1, cmd, lc + 1);
    memcpy(cmd, pre, o);
    cmd[o] = ' ';
    return 0;
}

void hs_resume_fallback_launcher(int np, char *buf, size_t size)
{
    const char *ov = getenv("OMPI_MCA_rmaps_base_oversubscribe");
    const int oversub = ov && (!strcmp(ov, "1") || !strcmp(ov, "true"));
    const int root = geteuid() == 0 && getenv("OMPI_COMM_WORLD_SIZE") && !getenv("OMPI_ALLOW_RUN_AS_ROOT");
    snprintf(buf, size, "mpirun%s%s -np %d", oversub ? " --oversubscribe" : "", root ? " --allow-run-as-root" : "", np);
}

/* argv of process @p pid into buf (NUL-separated words), their count, or -1 */
static int proc_cmdline(long pid, char *buf, size_t size, const char **words, int max)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t len = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[len] = '\0';
    int n = 0;
    for (size_t i = 0; i < len && n < max; i += strlen(buf + i) + 1) words[n++] = buf + i;
    return n;
}

/* the parent of process @p pid (/proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces
 * and parentheses, so read after the last ')'), or -1 */
static long parent_of(long pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t len = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[len] = '\0';
    const char *r = strrchr(line, ')');
    char state;
    long ppid;
    if (!r || sscanf(r + 1, " %c %ld", &state, &ppid) != 2) return -1;
    return ppid;
}

int hs_launcher_argv(char *buf, size_t size, const char **words, int max)
{
    static const char *const launchers[] = {"mpirun", "mpiexec", "orterun", "prterun", "oshrun"};
    long pid = (long)getppid();
    for (int depth = 0; depth < 8 && pid > 1; ++depth) {
        const int n = proc_cmdline(pid, buf, size, words, max);
        if (n > 0)
            for (size_t j = 0; j < sizeof launchers / sizeof launchers[0]; ++j)
                if (!strcmp(base_name(words[0]), launchers[j])) return n;
        pid = parent_of(pid);
    }
    return 0;
}
