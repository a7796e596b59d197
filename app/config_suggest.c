/* The config loader's suggestions for unknown keys and sections (config_internal.h): the optimal
 * string alignment distance to every key, "did you mean", and the lists of sections and keys. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "config_internal.h"

/* Is @p name a section (the part before the dot of some key)? */
int hs_cfg_is_section(const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < hs_cfg_nkeys(); ++i) {
        const char *p = hs_cfg_keys()[i].path;
        if (!is_member(&hs_cfg_keys()[i]) && strncmp(p, name, n) == 0 && p[n] == '.') return 1;
    }
    return 0;
}

/* Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
int hs_cfg_osa_distance(const char *a, const char *b)
{
    enum { N = 64 };
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la >= N || lb >= N) return INT_MAX / 2;
    int d[N + 1][N + 1];
    for (int i = 0; i <= la; ++i) d[i][0] = i;
    for (int j = 0; j <= lb; ++j) d[0][j] = j;
    for (int i = 1; i <= la; ++i) {
        for (int j = 1; j <= lb; ++j) {
            int cost = a[i - 1] != b[j - 1];
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[la][lb];
}

/* Suggestions are made when the distance is at most max(2, len/3) of what was typed. */
int hs_cfg_close_enough(int d, const char *typed)
{
    int lim = (int)strlen(typed) / 3;
    return d <= (lim > 2 ? lim : 2);
}

/* Nearest valid (non-stimulus) key to @p typed ("section.name" or a bare "name"), or NULL. A
 * key with the same name in another section counts as one edit away, so `time.alpha` and a
 * top-level `dt` find `model.alpha` and `time.dt`; a name is never "corrected" into a key that
 * shares none of its letters (`a` does not suggest `mesh.h`). */
const char *hs_cfg_suggest_key(const char *typed)
{
    const char *best = NULL;
    int best_d = INT_MAX, best_dl = INT_MAX;
    const char *tleaf = leaf_of(typed);
    size_t tsec = strlen(typed) - strlen(tleaf);
    for (int i = 0; i < hs_cfg_nkeys(); ++i) {
        const hs_cfg_key *k = &hs_cfg_keys()[i];
        if (is_member(k) || k->type == HS_CFG_GROUPLIST) continue;
        const char *kleaf = leaf_of(k->path);
        size_t ksec = strlen(k->path) - strlen(kleaf);
        int same_sec = tsec == ksec && strncmp(typed, k->path, tsec) == 0;
        int d = hs_cfg_osa_distance(typed, k->path);
        int dl = hs_cfg_osa_distance(tleaf, kleaf) + (same_sec ? 0 : 1);
        if (dl < d) d = dl;
        if (d < best_d) {
            best_d = d;
            best_dl = hs_cfg_osa_distance(tleaf, kleaf);
            best = k->path;
        }
    }
    return best && hs_cfg_close_enough(best_d, tleaf) && best_dl < (int)strlen(tleaf) ? best : NULL;
}

/* Nearest section name, or NULL. */
const char *hs_cfg_suggest_section(const char *typed, char *buf, size_t n)
{
    int best_d = INT_MAX;
    for (int i = 0; i < hs_cfg_nkeys(); ++i) {
        const hs_cfg_key *k = &hs_cfg_keys()[i];
        if (is_member(k)) continue;
        char sec[64];
        size_t len = strcspn(k->path, ".");
        if (len >= sizeof sec) continue;
        memcpy(sec, k->path, len);
        sec[len] = '\0';
        int d = hs_cfg_osa_distance(typed, sec);
        if (d < best_d) {
            best_d = d;
            snprintf(buf, n, "%s", sec);
        }
    }
    return best_d < (int)strlen(typed) && hs_cfg_close_enough(best_d, typed) ? buf : NULL;
}

/* "mesh, fibers, ..." */
const char *hs_cfg_section_list(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    const char *prev = NULL;
    size_t prev_len = 0;
    for (int i = 0; i < hs_cfg_nkeys(); ++i) {
        const hs_cfg_key *k = &hs_cfg_keys()[i];
        if (is_member(k)) continue;
        size_t sl = strcspn(k->path, ".");
        if (prev && sl == prev_len && strncmp(prev, k->path, sl) == 0) continue;
        int w = snprintf(buf + len, n - len, "%s%.*s", len ? ", " : "", (int)sl, k->path);
        if (w < 0 || (size_t)w >= n - len) break;
        len += (size_t)w;
        prev = k->path;
        prev_len = sl;
    }
    return buf;
}

/* Names of the keys of one section (or of a stimulus group when @p section is NULL). */
const char *hs_cfg_key_list(const char *section, char *buf, size_t n)
{
    size_t len = 0, sl = section ? strlen(section) : 0;
    buf[0] = '\0';
    for (int i = 0; i < hs_cfg_nkeys(); ++i) {
        const hs_cfg_key *k = &hs_cfg_keys()[i];
        int in = section ? (!strcmp(section, "regions") ? is_region(k)
                                                        : !is_member(k) && strncmp(k->path, section, sl) == 0 &&
                                                              k->path[sl] == '.')
                         : is_stim(k);
        if (!in) continue;
        int w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "", leaf_of(k->path));
        if (w < 0 || (size_t)w >= n - len) break;
        len += (size_t)w;
    }
    return buf;
}

