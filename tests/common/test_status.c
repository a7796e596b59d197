/* The error slot (common/hs_status.c): a message that quotes raw bytes of a corrupt or binary file
 * shows them escaped as \xNN, never as raw bytes or terminal escape sequences (issue 30, item 10);
 * printable text, newlines, tabs and valid UTF-8 stay as they are; hs_error_prefix keeps it so. */
#include <string.h>

#include "hs_status.h"
#include "hs_test.h"

int main(void)
{
    (void)HS_FAIL(HS_ERR_MESH, "x.vtk:1: found '%s'", "ab\x1b[31m\x01\xff\xfe\x89PNG\x7f");
    HS_TEST_CHECK(strcmp(hs_error_message(), "x.vtk:1: found 'ab\\x1b[31m\\x01\\xff\\xfe\\x89PNG\\x7f'") == 0,
                  "escaped: %s", hs_error_message());
    hs_error_prefix("%s: ", "mesh\x07");
    HS_TEST_CHECK(strncmp(hs_error_message(), "mesh\\x07: x.vtk:1: found 'ab\\x1b", 30) == 0, "prefixed: %s",
                  hs_error_message());
    hs_error_clear();
    /* a clean message: printable, tab, newline, UTF-8 (mu, degree, a 4-byte emoji) untouched */
    (void)HS_FAIL(HS_ERR_CONFIG, "a\tb\nc \xc2\xb5m 90\xc2\xb0 \xf0\x9f\x98\x80");
    HS_TEST_CHECK(strcmp(hs_error_message(), "a\tb\nc \xc2\xb5m 90\xc2\xb0 \xf0\x9f\x98\x80") == 0,
                  "kept: %s", hs_error_message());
    hs_error_clear();
    /* a lone continuation byte or a truncated sequence marks the message as garbage: every
     * non-ASCII byte is escaped, the valid-looking ones and tabs too (a newline stays) */
    (void)HS_FAIL(HS_ERR_MESH, "\xea\xad\xb1\t\x80 \xe2\x82\nz");
    HS_TEST_CHECK(strcmp(hs_error_message(), "\\xea\\xad\\xb1\\x09\\x80 \\xe2\\x82\nz") == 0, "dirty: %s",
                  hs_error_message());
    hs_error_clear();
    /* a long garbage message stays within the slot and ends cleanly */
    char big[3000];
    memset(big, 0x01, sizeof big - 1);
    big[sizeof big - 1] = '\0';
    (void)HS_FAIL(HS_ERR_MESH, "%s", big);
    const char *m = hs_error_message();
    HS_TEST_CHECK(strlen(m) > 1000 && strlen(m) < 2048 && strncmp(m, "\\x01\\x01", 8) == 0, "long: %zu chars",
                  strlen(m));
    for (const char *p = m; *p; ++p)
        if (*p == 0x01) {
            HS_TEST_CHECK(0, "raw byte left at %zu", (size_t)(p - m));
            break;
        }
    hs_error_clear();
    HS_TEST_RETURN();
}
