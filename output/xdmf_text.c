/* The XML side shared by the XDMF formats (hs_xdmf_text.h). */
#include "hs_xdmf_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_util.h"

/* Well-formed UTF-8 (the index declares that encoding; a stray byte makes it unreadable). */
static int utf8_valid(const unsigned char *c)
{
    while (*c) {
        int more = *c < 0x80 ? 0 : (*c & 0xE0) == 0xC0 ? 1 : (*c & 0xF0) == 0xE0 ? 2 : (*c & 0xF8) == 0xF0 ? 3 : -1;
        if (more < 0) return 0;
        ++c;
        for (int k = 0; k < more; ++k, ++c)
            if ((*c & 0xC0) != 0x80) return 0;
    }
    return 1;
}

hs_status hs_xdmf_check_prefix(const char *prefix, const char *format, const char *also)
{
    for (const unsigned char *c = (const unsigned char *)prefix; *c; ++c)
        HS_CHECK(*c > ' ' && *c != 0x7f && *c != '|', HS_ERR_CONFIG,
                 "output prefix \"%s\": the %s format cannot use white space, control characters "
                 "or '|' in file names (XDMF readers split and trim data file names there)", prefix, format);
    HS_CHECK(!also || !strpbrk(prefix, also), HS_ERR_CONFIG,
             "output prefix \"%s\": the %s format cannot use any of \"%s\" in file names (XDMF "
             "readers split FILE:/dataset there)", prefix, format, also ? also : "");
    HS_CHECK(utf8_valid((const unsigned char *)prefix), HS_ERR_CONFIG,
             "output prefix \"%s\" is not valid UTF-8, which the XDMF index requires", prefix);
    return HS_OK;
}

hs_status hs_xdmf_escape(const char *str, char **out)
{
    size_t len = 1;
    for (const char *c = str; *c; ++c) len += strchr("&<>\"'", *c) ? 6 : 1;
    char *p = NULL;
    HS_CALL(HS_ALLOC(p, len, "escaped name"));
    char *o = p;
    for (const char *c = str; *c; ++c) {
        const char *ent = *c == '&' ? "&amp;" : *c == '<' ? "&lt;" : *c == '>' ? "&gt;"
                        : *c == '"' ? "&quot;" : *c == '\'' ? "&apos;" : NULL;
        if (ent) {
            memcpy(o, ent, strlen(ent));
            o += strlen(ent);
        } else {
            *o++ = *c;
        }
    }
    *o = '\0';
    *out = p;
    return HS_OK;
}

void hs_xdmf_format_time(double t, char *buf, size_t size)
{
    snprintf(buf, size, "%.15g", t);
    if (strtod(buf, NULL) != t) snprintf(buf, size, "%.17g", t);
}
