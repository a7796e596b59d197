/* Error recording: one slot per thread, the first error wins until cleared. */
#include "hs_status.h"

#include <stdio.h>
#include <string.h>

#define HS_MSG_MAX 2048

static _Thread_local hs_status g_code = HS_OK;
static _Thread_local char g_msg[HS_MSG_MAX];
static _Thread_local char g_loc[256];

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
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_msg, sizeof g_msg, fmt, ap);
    va_end(ap);
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
}

const char *hs_error_message(void) { return g_code == HS_OK ? "" : g_msg; }
const char *hs_error_location(void) { return g_code == HS_OK ? "" : g_loc; }
hs_status hs_error_code(void) { return g_code; }
void hs_error_clear(void)
{
    g_code = HS_OK;
    g_msg[0] = g_loc[0] = '\0';
}
