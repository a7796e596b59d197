/* Frames as lists of named arrays (hs_frame.h): building, checking, and the write order. */
#include "hs_frame.h"

#include <string.h>

hs_frame hs_frame_at(double time_ms)
{
    hs_frame fr;
    memset(&fr, 0, sizeof fr);
    fr.time_ms = time_ms;
    return fr;
}

static hs_status add(hs_frame *fr, hs_frame_field f)
{
    HS_CHECK(fr->n_fields >= 0 && fr->n_fields < HS_FRAME_MAX_FIELDS, HS_ERR_INTERNAL,
             "frame field \"%s\": a frame holds at most %d fields", f.name ? f.name : "(null)",
             HS_FRAME_MAX_FIELDS);
    fr->field[fr->n_fields++] = f;
    return HS_OK;
}

hs_status hs_frame_add(hs_frame *fr, const char *name, int cell, const double *data)
{
    return add(fr, (hs_frame_field){name, cell, data, 0, 1.0, 0.0});
}

hs_status hs_frame_add_mapped(hs_frame *fr, const char *name, int cell, const double *data,
                              double scale, double offset)
{
    return add(fr, (hs_frame_field){name, cell, data, 1, scale, offset});
}

/* A name both formats take verbatim: a VTK keyword line splits at blanks, XDMF is XML. */
static int name_ok(const char *name)
{
    if (!name || !*name || (*name >= '0' && *name <= '9')) return 0;
    for (const char *c = name; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return 1;
}

hs_status hs_frame_check(const hs_frame *fr)
{
    HS_CHECK(fr->n_fields >= 0 && fr->n_fields <= HS_FRAME_MAX_FIELDS, HS_ERR_INTERNAL,
             "frame with %d fields (at most %d)", fr->n_fields, HS_FRAME_MAX_FIELDS);
    HS_CHECK((fr->mesh_fields & ~(HS_MESH_FIELD_FIBER | HS_MESH_FIELD_REGION)) == 0, HS_ERR_INTERNAL,
             "frame asks for unknown mesh arrays 0x%x", (unsigned)fr->mesh_fields);
    for (int i = 0; i < fr->n_fields; ++i) {
        const hs_frame_field *f = &fr->field[i];
        HS_CHECK(name_ok(f->name), HS_ERR_INTERNAL,
                 "frame field %d: name \"%s\" is not letters, digits and '_'", i, f->name ? f->name : "(null)");
        HS_CHECK(f->data && (f->cell == 0 || f->cell == 1), HS_ERR_INTERNAL,
                 "frame field \"%s\": no data, or cell = %d (0: point, 1: cell)", f->name, f->cell);
        for (int j = 0; j < i; ++j)
            HS_CHECK(strcmp(f->name, fr->field[j].name) != 0, HS_ERR_INTERNAL, "frame field \"%s\" listed twice",
                     f->name);
        HS_CHECK(!((fr->mesh_fields & HS_MESH_FIELD_FIBER) && !strcmp(f->name, "fiber")) &&
                     !((fr->mesh_fields & HS_MESH_FIELD_REGION) && !strcmp(f->name, "region")),
                 HS_ERR_INTERNAL, "frame field \"%s\" has the name of a mesh array the frame carries", f->name);
    }
    return HS_OK;
}

int hs_frame_order(const hs_frame *fr, int order[HS_FRAME_MAX_FIELDS])
{
    int n = 0;
    for (int cell = 0; cell < 2; ++cell)
        for (int i = 0; i < fr->n_fields; ++i)
            if (fr->field[i].cell == cell) order[n++] = i;
    return n;
}

int hs_frame_mesh_arrays(const hs_frame *fr, const hs_mesh *mesh)
{
    return ((fr->mesh_fields & HS_MESH_FIELD_FIBER) && mesh->fiber ? HS_MESH_FIELD_FIBER : 0) |
           ((fr->mesh_fields & HS_MESH_FIELD_REGION) && mesh->region ? HS_MESH_FIELD_REGION : 0);
}
