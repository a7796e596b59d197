/* The command that resumes a run (hs_resume_cmd.h): every word of it shell-quoted. */
#include "hs_resume_cmd.h"

#include <stdio.h>
#include <string.h>

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
