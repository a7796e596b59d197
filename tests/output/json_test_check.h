/**
 * @file json_test_check.h
 * @brief A strict JSON syntax check (RFC 8259 grammar, no extensions) for the output tests:
 * catches what a reader like ParaView's would reject (trailing or leading commas, nan, inf,
 * unescaped quotes) without depending on a JSON library.
 */
#ifndef JSON_TEST_CHECK_H
#define JSON_TEST_CHECK_H

#include <string.h>

static int json_test_value(const char **p, int depth);

static void json_test_ws(const char **p)
{
    while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r') ++*p;
}

static int json_test_string(const char **p)
{
    if (**p != '"') return 0;
    for (++*p; **p != '"'; ++*p) {
        unsigned char c = (unsigned char)**p;
        if (c < 0x20) return 0; /* also catches the end of the text */
        if (c == '\\') {
            ++*p;
            if (**p == 'u') {
                for (int k = 1; k <= 4; ++k)
                    if (!strchr("0123456789abcdefABCDEF", (*p)[k]) || !(*p)[k]) return 0;
                *p += 4;
            } else if (!**p || !strchr("\"\\/bfnrt", **p)) {
                return 0;
            }
        }
    }
    ++*p;
    return 1;
}

static int json_test_digits(const char **p)
{
    const char *start = *p;
    while (**p >= '0' && **p <= '9') ++*p;
    return *p > start;
}

static int json_test_number(const char **p)
{
    if (**p == '-') ++*p;
    if (**p == '0') ++*p;
    else if (!json_test_digits(p)) return 0;
    if (**p == '.') {
        ++*p;
        if (!json_test_digits(p)) return 0;
    }
    if (**p == 'e' || **p == 'E') {
        ++*p;
        if (**p == '+' || **p == '-') ++*p;
        if (!json_test_digits(p)) return 0;
    }
    return 1;
}

/* Object or array body after its opening bracket. */
static int json_test_container(const char **p, int depth, int object)
{
    const char close = object ? '}' : ']';
    json_test_ws(p);
    if (**p == close) {
        ++*p;
        return 1;
    }
    for (;;) {
        json_test_ws(p);
        if (object) {
            if (!json_test_string(p)) return 0;
            json_test_ws(p);
            if (**p != ':') return 0;
            ++*p;
        }
        if (!json_test_value(p, depth + 1)) return 0;
        json_test_ws(p);
        if (**p == close) {
            ++*p;
            return 1;
        }
        if (**p != ',') return 0;
        ++*p;
    }
}

static int json_test_value(const char **p, int depth)
{
    if (depth > 64) return 0;
    json_test_ws(p);
    switch (**p) {
    case '{': ++*p; return json_test_container(p, depth, 1);
    case '[': ++*p; return json_test_container(p, depth, 0);
    case '"': return json_test_string(p);
    case 't': return strncmp(*p, "true", 4) ? 0 : (*p += 4, 1);
    case 'f': return strncmp(*p, "false", 5) ? 0 : (*p += 5, 1);
    case 'n': return strncmp(*p, "null", 4) ? 0 : (*p += 4, 1);
    default: return json_test_number(p);
    }
}

/** @brief 1 when @p text is one valid JSON value (surrounding whitespace allowed). */
static int json_test_valid(const char *text)
{
    const char *p = text;
    if (!json_test_value(&p, 0)) return 0;
    json_test_ws(&p);
    return *p == '\0';
}

#endif
