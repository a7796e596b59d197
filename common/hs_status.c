/* Error recording: one slot per thread, the first error wins until cleared. */
#include "hs_status.h"

#include <stdio.h>
#include <string.h>

#define HS_MSG_MAX 2048

static _Thread_local hs_status g_code = HS_OK;
static _Thread_local char g_msg[HS_MSG_MAX];
static _Thread_local char g_loc[256];
static _Thread_local int g_agreed; /* the recorded error is every rank's (hs_error_mark_agreed) */

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when the bytes there are not one. */
static int utf8_len(const unsigned char *p)
{
    int n = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 && p[0] < 0xE0 ? 2 : 0;
    if (p[0] >= 0xF5) n = 0;
    for (int k = 1; k < n; ++k)
        if ((p[k] & 0xC0) != 0x80) return 0;
    return n;
}

/* A message may quote bytes of a file that is not what it claims (a binary or corrupt mesh). A
 * message with a control character (other than newline and tab) or a byte that is not valid UTF-8
 * has every byte outside printable ASCII but the newline written as "\xNN" (tabs and garbage that
 * happens to form valid UTF-8 show escaped too), so a garbage file cannot write escape sequences or raw bytes to the terminal;
 * a clean message, UTF-8 paths included, stays as it is. */
static void escape_unprintable(char *msg, size_t cap)
{
    int clean = 1;
    for (const unsigned char *p = (const unsigned char *)msg; *p && clean;) {
        if ((*p >= 0x20 && *p < 0x7f) || *p == '\n' || *p == '\t') {
            ++p;
            continue;
        }
        const int n = *p >= 0x80 ? utf8_len(p) : 0;
        if (n > 1)
            p += n;
        else
            clean = 0;
    }
    if (clean) return;
    char out[HS_MSG_MAX];
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)msg; *p && o + 5 < sizeof out && o + 5 < cap; ++p) {
        if ((*p >= 0x20 && *p < 0x7f) || *p == '\n')
            out[o++] = (char)*p;
        else
            o += (size_t)snprintf(out + o, sizeof out - o, "\\x%02x", *p);
    }
    out[o] = '\0';
    memcpy(msg, out, o + 1);
}

const char *hs_status_name(hs_status s)
{
    switch (s) {
    case HS_OK: return "ok";
    case HS_ERR_USAGE: return "usage error";
    case HS_ERR_CONFIG: return "config error";
    case HS_ERR_MESH: return "mesh error";
    case HS_ERR_IO: return "I/O error";
    case HS_ERR_NUMERIC: return "numerical failure";
    case HS_ERR_DEVICE: return "device error";
    case HS_ERR_MEMORY: return "out of memory";
    case HS_ERR_INTERRUPTED: return "interrupted";
    case HS_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

hs_status hs_error_set(hs_status code, const char *file, int line, const char *func,
                       const char *fmt, ...)
{
    if (g_code != HS_OK) return code; /* keep the first (root-cause) message */
    g_code = code;
    g_agreed = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_msg, sizeof g_msg, fmt, ap);
    va_end(ap);
    escape_unprintable(g_msg, sizeof g_msg);
    snprintf(g_loc, sizeof g_loc, "%s:%d (%s)", file, line, func);
    return code;
}

void hs_error_prefix(const char *fmt, ...)
{
    if (g_code == HS_OK) return;
    char old[HS_MSG_MAX];
    memcpy(old, g_msg, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(g_msg, sizeof g_msg, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n < sizeof g_msg) {
        size_t room = sizeof g_msg - (size_t)n - 1, len = strlen(old);
        if (len > room) len = room;
        memcpy(g_msg + n, old, len);
        g_msg[(size_t)n + len] = '\0';
    }
    escape_unprintable(g_msg, sizeof g_msg);
}

const char *hs_error_message(void) { return g_code == HS_OK ? "" : g_msg; }
const char *hs_error_location(void) { return g_code == HS_OK ? "" : g_loc; }
hs_status hs_error_code(void) { return g_code; }
void hs_error_mark_agreed(void) { g_agreed = g_code != HS_OK; }
int hs_error_agreed(void) { return g_code != HS_OK && g_agreed; }

void hs_error_clear(void)
{
    g_code = HS_OK;
    g_agreed = 0;
    g_msg[0] = g_loc[0] = '\0';
}
