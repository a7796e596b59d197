/* solver.step's modes (fem/hs_step_mode_list.h) as a registry: each entry at its enum's index, found
 * by its name, "auto" as HS_STEP_AUTO, an unknown name an error listing them; the same for
 * parallel.transport's (fem/hs_transport_list.h: entry i is enum i + 1, "auto" 0, a zeroed plan's);
 * and the plan's "resolved" test. Read from the list itself, so a mode appended there needs no change here. */
#include <stdio.h>
#include <string.h>

#include "hs_exec_plan.h"
#include "hs_test.h"

int main(void)
{
    const hs_registry *r = hs_step_modes();
    HS_TEST_CHECK(r->count > (size_t)HS_STEP_PERSISTENT, "%zu modes: the ones code names are missing", r->count);
    char want[512] = "auto";
    for (size_t i = 0; i < r->count; ++i) {
        const hs_step_mode_info *m = hs_registry_at(r, i);
        HS_TEST_CHECK(m->name && m->summary && (size_t)m->mode == i, "entry %zu", i);
        HS_TEST_CHECK(strcmp(hs_step_mode_name(m->mode), m->name) == 0, "name(%d)", (int)m->mode);
        hs_step_mode got = HS_STEP_AUTO;
        HS_TEST_OK(hs_step_mode_lookup("solver.step", m->name, &got));
        HS_TEST_CHECK(got == m->mode, "lookup(%s) = %d", m->name, (int)got);
        strncat(want, ", ", sizeof want - strlen(want) - 1);
        strncat(want, m->name, sizeof want - strlen(want) - 1);
    }
    HS_TEST_CHECK(strcmp(hs_step_mode_name(HS_STEP_AUTO), "auto") == 0, "name(auto)");
    HS_TEST_CHECK(strcmp(hs_step_mode_name((hs_step_mode)r->count), "(unknown)") == 0, "name past the end");
    hs_step_mode got = HS_STEP_KERNELS;
    HS_TEST_OK(hs_step_mode_lookup("solver.step", "auto", &got));
    HS_TEST_CHECK(got == HS_STEP_AUTO, "lookup(auto) = %d", (int)got);
    got = HS_STEP_GRAPH;
    hs_error_clear();
    HS_TEST_CHECK(hs_step_mode_lookup("solver.step", "persistant", &got) == HS_ERR_CONFIG && got == HS_STEP_GRAPH,
                  "lookup(persistant)");
    char msg[700];
    snprintf(msg, sizeof msg, "solver.step: unknown step mode \"persistant\"; available: %s", want);
    HS_TEST_CHECK(strcmp(hs_error_message(), msg) == 0, "message \"%s\", want \"%s\"", hs_error_message(), msg);
    hs_error_clear();

    /* a request is resolved only with every choice made */
    hs_exec_plan p = hs_exec_plan_request(HS_STEP_GRAPH, 1, HS_VALUES_F64, &hs_spmv_ops_csr_scalar);
    HS_TEST_CHECK(hs_exec_plan_resolved(&p) && !p.why_step[0] && !p.why_spmv[0], "a named plan");
    p.step = HS_STEP_AUTO;
    HS_TEST_CHECK(!hs_exec_plan_resolved(&p), "step auto counted as resolved");
    p = hs_exec_plan_request(HS_STEP_GRAPH, HS_PERSISTENT_AUTO, HS_VALUES_F64, &hs_spmv_ops_csr_scalar);
    HS_TEST_CHECK(!hs_exec_plan_resolved(&p), "persistent auto counted as resolved");
    p = hs_exec_plan_request(HS_STEP_GRAPH, 0, HS_VALUES_AUTO, &hs_spmv_ops_csr_scalar);
    HS_TEST_CHECK(!hs_exec_plan_resolved(&p), "values auto counted as resolved");
    p = hs_exec_plan_request(HS_STEP_GRAPH, 0, HS_VALUES_F32, NULL);
    HS_TEST_CHECK(!hs_exec_plan_resolved(&p), "no kernel counted as resolved");
    /* parallel.transport */
    const hs_registry *t = hs_transports();
    HS_TEST_CHECK(t->count >= 3, "%zu transports: nccl, ipc, mpi expected", t->count);
    char twant[256] = "auto";
    for (size_t i = 0; i < t->count; ++i) {
        const hs_transport_info *m = hs_registry_at(t, i);
        HS_TEST_CHECK(m->name && m->summary && (size_t)m->transport == i + 1, "transport entry %zu", i);
        HS_TEST_CHECK(strcmp(hs_transport_name(m->transport), m->name) == 0, "transport name(%d)", (int)m->transport);
        hs_transport tg = HS_TRANSPORT_AUTO;
        HS_TEST_OK(hs_transport_lookup("parallel.transport", m->name, &tg));
        HS_TEST_CHECK(tg == m->transport, "transport lookup(%s) = %d", m->name, (int)tg);
        strncat(twant, ", ", sizeof twant - strlen(twant) - 1);
        strncat(twant, m->name, sizeof twant - strlen(twant) - 1);
    }
    HS_TEST_CHECK(strcmp(twant, "auto, nccl, ipc, mpi") == 0, "transports %s", twant);
    hs_transport tg = HS_TRANSPORT_IPC;
    HS_TEST_OK(hs_transport_lookup("parallel.transport", "auto", &tg));
    HS_TEST_CHECK(tg == HS_TRANSPORT_AUTO && strcmp(hs_transport_name(HS_TRANSPORT_AUTO), "auto") == 0, "auto");
    hs_exec_plan z;
    memset(&z, 0, sizeof z);
    HS_TEST_CHECK(z.transport == HS_TRANSPORT_AUTO, "a zeroed plan's transport is not auto");
    tg = HS_TRANSPORT_MPI;
    HS_TEST_CHECK(hs_transport_lookup("parallel.transport", "shm", &tg) == HS_ERR_CONFIG && tg == HS_TRANSPORT_MPI,
                  "lookup(shm)");
    snprintf(msg, sizeof msg, "parallel.transport: unknown transport \"shm\"; available: %s", twant);
    HS_TEST_CHECK(strcmp(hs_error_message(), msg) == 0, "message \"%s\", want \"%s\"", hs_error_message(), msg);
    hs_error_clear();
    HS_TEST_RETURN();
}
