/* Building a simulation from its spec (hs_sim.h), in one order: backend -> mesh -> execution plan
 * (step mode, SpMV kernel, value precision, persistent CG: the backend's policy, once) -> the
 * kernel's node order -> stimulus sites -> problem (pattern and gather maps, built once) -> backend. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hs_build_config.h"
#include "hs_mesh_cache.h"
#include "hs_mesh_part.h"
#include "hs_par.h"
#include "hs_sim.h"
#include "hs_util.h"
#if HS_HAS_MPI
#include "hs_backend_mpi.h"
#endif

/* The problem options of @p spec (model, diffusion, CG, Newton...); the execution plan is resolved
 * later (resolve_plan). */
static void problem_opts(const hs_sim_spec *spec, hs_problem_opts *o)
{
    memset(o, 0, sizeof *o);
    o->model = spec->model;
    o->model_prm = spec->model_prm;
    o->time_unit = spec->time_unit;
    o->d_iso = spec->d_iso;
    o->d_ani = spec->d_ani;
    o->cg = spec->cg;
    o->cg_forcing = spec->cg_forcing;
    o->extrapolate = spec->extrapolate;
    o->graph = spec->graph;
    o->assembly = spec->assembly;
    o->steps_hint = spec->dt > 0 ? (long)ceil(spec->t_end / spec->dt - 1e-9) : 0;
    o->newton_tol_residual = spec->newton_tol_residual;
    o->newton_tol_update = spec->newton_tol_update;
    o->newton_max_iter = spec->newton_max_iter;
    /* the threshold in the model's potential: V = mv_scale u + mv_offset */
    o->activation_phi = (spec->activation_threshold - spec->model->mv_offset) / spec->model->mv_scale;
    o->repol_phi = (spec->repol_threshold - spec->model->mv_offset) / spec->model->mv_scale;
    o->spmv_params = spec->spmv_params;
    o->pc = spec->pc;
    o->scheme = spec->scheme;
    /* the splitting scheme: solver.extrapolate >= 1 starts the diffusion's CG from u* plus the previous
     * step's correction (hs_split_guess_scale) */
}

/* Print each region entry's elements and volume; the mesh's "region" cell field becomes the entry
 * that decides each element (1-based, 0 = none), which frames and the maps file show. */
static hs_status report_regions(const hs_sim_spec *spec, hs_sim *sim)
{
    const hs_region_set *rg = sim->regions;
    hs_mesh *m = sim->mesh;
    for (int i = 0; i < rg->n_entries; ++i) {
        char who[96];
        hs_region_entry_name(&spec->regions[i], i, who, sizeof who);
        hs_log(1, "%s: %d elements, %.6g mm^3\n", who, (int)rg->entry_count[i], rg->entry_volume[i]);
    }
    if (rg->n_passive > 0)
        hs_log(1, "regions: %d non-conducting elements; %d nodes touch only those and are held at rest\n",
               (int)rg->n_passive, (int)rg->n_decoupled);
    if (!m->region) HS_CALL(HS_ALLOC(m->region, (size_t)m->n_elems + 1, "region field"));
    memcpy(m->region, rg->elem_entry, sizeof(int32_t) * (size_t)m->n_elems);
    return HS_OK;
}

/* A distributed run's choices (a partition's solve, the cpu backend's own through the rank's comm or
 * a backend without its own plan for partitions: hs_backend_part_ops.resolve_plan), reads each rank's owned rows in CSR order with
 * float64 values unless named otherwise; the host runs the Newton loop):
 * what its "auto"s mean. A named device step or persistent CG is not run there either (as the cpu
 * backend's policy says of a named step): replaced, with the reason logged. What it refuses of
 * named choices, the distributed backend says. */
static void distributed_plan(hs_exec_plan *p)
{
    if (p->step != HS_STEP_KERNELS) {
        p->step = HS_STEP_KERNELS;
        snprintf(p->why_step, sizeof p->why_step, "a distributed run's Newton decisions are global, on the host");
    }
    if (p->persistent_cg != 0) {
        p->persistent_cg = 0;
        snprintf(p->why_persistent, sizeof p->why_persistent, "a distributed run solves through the backend's partition ops");
    }
    if (p->values == HS_VALUES_AUTO) {
        p->values = HS_VALUES_F64;
        snprintf(p->why_values, sizeof p->why_values, "a distributed run stores float64 values");
    }
    if (!p->spmv) {
        p->spmv = &hs_spmv_ops_csr_scalar;
        snprintf(p->why_spmv, sizeof p->why_spmv, "a distributed run multiplies each rank's owned rows in CSR order");
    }
}

/* One line per choice the policy made, with its reason: "<key>: <asked> -> <chosen> (<why>)". */
static void log_plan(const hs_sim_spec *spec, const hs_exec_plan *p)
{
    static const char *const onoff[] = {"auto", "off", "on"}; /* solver.persistent: -1, 0, 1 */
    if (p->why_spmv[0])
        hs_log(1, "spmv: %s -> %s (%s)\n", spec->spmv ? spec->spmv->name : "auto", p->spmv->name, p->why_spmv);
    if (p->why_values[0])
        hs_log(1, "matrix_values: %s -> %s (%s)\n", hs_matrix_values_name(spec->matrix_values),
               hs_matrix_values_name(p->values), p->why_values);
    if (p->why_persistent[0])
        hs_log(1, "persistent: %s -> %s (%s)\n", onoff[spec->persistent < 0 ? 0 : spec->persistent ? 2 : 1],
               onoff[p->persistent_cg ? 2 : 1], p->why_persistent);
    if (p->why_step[0])
        hs_log(1, "step: %s -> %s (%s)\n", hs_step_mode_name(spec->step), hs_step_mode_name(p->step), p->why_step);
}

/* The execution plan (fem/hs_exec_plan.h): the spec's requests, every "auto" resolved once by the
 * backend's policy (hs_backend_entry.resolve_plan; a distributed run: distributed_plan) on the
 * pattern before any format renumbers it, checked once, logged once with its reasons, and kept in
 * po->exec, where the backend reads it. */
static hs_status resolve_plan(const hs_sim_spec *spec, hs_sim *sim, const hs_csr *pattern, hs_problem_opts *po)
{
    double t0 = hs_wtime();
    hs_exec_plan plan = hs_exec_plan_request(spec->step, spec->persistent, spec->matrix_values, spec->spmv);
    plan.scheme = po->scheme.kind;
    plan.transport = spec->transport; /* resolved by the backend when it binds a partition */
    /* a distributed run: the backend's plan for its partitions (hs_backend_part_ops.resolve_plan: the
     * cuda backend's is the serial one on one rank), else distributed_plan */
    const hs_backend_part_ops *part = sim->backend_entry->part;
    int ranks = 1;
#if HS_HAS_MPI
    if (spec->distributed) ranks = hs_backend_mpi_ranks();
#endif
    if (spec->distributed && part && part->resolve_plan) HS_CALL(part->resolve_plan(pattern, po, ranks, &plan));
    else if (spec->distributed) distributed_plan(&plan);
    else HS_CALL(sim->backend_entry->resolve_plan(pattern, po, &plan));
    HS_CHECK(hs_exec_plan_resolved(&plan), HS_ERR_INTERNAL, "the %s backend left a choice of the execution plan open",
             sim->backend_entry->name);
    HS_CHECK(sim->backend_entry->needs_device || !plan.spmv->needs_device, HS_ERR_CONFIG,
             "solver.spmv: kernel \"%s\" runs only on a device backend, and this run uses the %s "
             "backend; use solver.spmv = \"auto\" or a kernel that `heartsim kernels` lists for cpu",
             plan.spmv->name, sim->backend_entry->name);
    HS_CALL(hs_spmv_check_values("solver.matrix_values", plan.spmv, plan.values));
    log_plan(spec, &plan);
    po->exec = plan;
    sim->setup.trial = hs_wtime() - t0;
    return HS_OK;
}

/* A format with its own node numbering (ELL-WARP "r" variants) renumbers the mesh, and the pattern
 * with it, so everything built afterwards lives in that numbering. *pattern is the pattern of the
 * final numbering on return (owned by the caller). */
static hs_status format_order(hs_sim *sim, const hs_problem_opts *po, hs_csr **pattern)
{
    const hs_spmv_ops *f = po->exec.spmv;
    if (!f->node_order) return HS_OK;
    double t1 = hs_wtime();
    int32_t *perm = NULL;
    hs_csr *renumbered = NULL;
    hs_status st = HS_ALLOC(perm, sim->mesh->n_nodes, "format numbering");
    if (st == HS_OK) st = f->node_order(*pattern, &po->spmv_params, perm);
    if (st == HS_OK) st = hs_mesh_renumber(sim->mesh, perm);
    if (st == HS_OK) st = hs_csr_permute(*pattern, perm, &renumbered);
    free(perm);
    HS_CALL(st);
    hs_csr_destroy(pattern);
    *pattern = renumbered;
    hs_log(1, "reorder: nodes renumbered in the order %s needs (node bandwidth now %lld)\n", f->name,
           (long long)hs_mesh_bandwidth(sim->mesh));
    sim->setup.reorder = hs_wtime() - t1;
    return HS_OK;
}

/* The global problem of a distributed run: options, mesh, stimulus sites and the pattern (which
 * the partitioner reads, when it reads one; else NULL), and none of what the ranks compute on
 * (element geometry, gather maps, K_D): each rank builds those of its local mesh (backends/mpi).
 * At 16M nodes the global ones were ~20 GB on every rank and a third of the set-up time.
 * hs_problem_destroy frees what is there. */
static hs_status problem_outline(const hs_mesh *mesh, const hs_stim_set *stim, const hs_problem_opts *po,
                                 hs_csr **pattern, hs_problem **out)
{
    HS_CHECK(!*pattern || (*pattern)->n_rows == mesh->n_nodes, HS_ERR_INTERNAL, "a pattern of another mesh");
    hs_problem *p = NULL;
    HS_CALL(HS_ALLOC(p, 1, "problem"));
    p->opt = *po;
    /* as hs_problem_create: regions that change every element alike are the uniform parameters */
    if (po->regions && !po->regions->elem_tab) p->opt.model_prm = po->regions->tab[0].prm;
    p->mesh = mesh;
    p->stim = stim;
    p->pattern = *pattern;
    *pattern = NULL;
    *out = p;
    return HS_OK;
}

/* A distributed run on several ranks whose other ranks need not hold the whole mesh: rank 0 builds it
 * and sends each rank its part (hs_mesh_part_scatter). Probes and ECG electrodes are found on the
 * ranks' parts (sim/samples.c), per-beat maps written from their owned rows (sim/beats.c). Not yet: a
 * format with its own node order (it renumbers the whole mesh): those runs broadcast the mesh. */
static int scatter_fits(const hs_sim_spec *spec)
{
#if HS_HAS_MPI
    const int ranks = spec->distributed ? hs_backend_mpi_ranks() : 1;
#else
    const int ranks = 1;
#endif
    return spec->distributed && ranks > 1 && spec->partitioner && !spec->partitioner->box &&
           !(spec->spmv && spec->spmv->node_order);
}

hs_status hs_sim_create(const hs_sim_spec *spec, hs_sim *sim)
{
    memset(sim, 0, sizeof *sim);
    hs_status st = HS_OK;
    hs_csr *pattern = NULL;
    /* parallel.partition = "box": each rank generates its block of the box; no rank builds the whole mesh */
    const int box_part = spec->distributed && spec->partitioner && spec->partitioner->box;
    /* parallel.read = "ranks": each rank reads its block of the mesh file; no rank builds the whole mesh */
    const int read_part = spec->distributed && spec->read_ranks && !box_part;
    int scatter = !box_part && !read_part && scatter_fits(spec); /* rank 0 reads the mesh and sends each rank its part */
    /* the ranks hold their parts and no whole mesh: each generated its block of the box, read its block
     * of the file, or read its part from the partitioned mesh cache (mesh.cache_parts); store_parts:
     * scattered, then stored */
    int own_parts = box_part || read_part;
#if HS_HAS_MPI
    int store_parts = 0;
    hs_backend_mpi_part bpart;
    memset(&bpart, 0, sizeof bpart);
#endif
    double t0 = hs_wtime();
    {
        /* solver.threads; else OMP_NUM_THREADS; else, with several ranks on this node, each rank its
         * share of the node's cores (hs_par_threads_rule) */
        const char *env = getenv("OMP_NUM_THREADS");
        const long online = sysconf(_SC_NPROCESSORS_ONLN);
        const int node = hs_par_node_ranks();
        const int nt = hs_par_threads_rule(spec->threads, env && *env, online > 0 ? (int)online : 1, node,
                                           omp_get_num_procs());
        if (nt > 0) omp_set_num_threads(nt);
        if (nt > 0 && spec->threads <= 0)
            hs_log(1, "threads: %d OpenMP threads per rank (%d ranks on this node of %ld cores, %d in the rank's "
                   "affinity mask; solver.threads or OMP_NUM_THREADS chooses)\n", nt, node, online,
                   omp_get_num_procs());
    }
    /* the backend first: a missing device is said before any meshing, and the device's own
     * initialisation (a CUDA context: ~0.3 s) runs alongside the host's set-up */
    if (spec->backend) {
        sim->backend_entry = spec->backend;
        char desc[256], why[512];
        const hs_status ps = spec->backend->probe(desc, sizeof desc, why, sizeof why)
                                 ? HS_OK
                                 : HS_FAIL(HS_ERR_DEVICE, "solver.backend = \"%s\" but no usable %s device: %s. Use "
                                           "solver.backend = \"cpu\" (or \"auto\")",
                                           spec->backend->name, spec->backend->name, why);
        /* a distributed run: one rank without a device stops every rank, said once (by rank 0) */
        HS_CALL_GOTO(spec->distributed ? hs_par_agree(ps) : ps, fail);
    } else {
        HS_CALL_GOTO(hs_backends_auto(&sim->backend_entry), fail);
    }
    /* not in a distributed run: each rank's device is chosen later (backends/mpi), and a context on
     * device 0 from every rank of a node would cost each rank's memory there */
    if (sim->backend_entry->warm_up && !spec->distributed) sim->backend_entry->warm_up();
    /* checked, fibres, reordered; a distributed run's on rank 0, broadcast; or each rank its block */
    if (box_part) {
#if HS_HAS_MPI
        /* alike on every rank: said once, by rank 0 */
        const char *why = hs_mesh_part_box_unfit(spec);
        HS_CALL_GOTO(hs_par_agree(!why ? HS_OK : HS_FAIL(HS_ERR_CONFIG, "parallel.partition = \"box\": %s, which no "
                                  "rank holds here; use parallel.partition = \"metis\" (or \"auto\", which picks it "
                                  "for this run)", why)), fail);
        HS_CALL_GOTO(hs_mesh_part_box(&spec->mesh, spec->stimuli, spec->n_stimuli,
                                      spec->output_enabled || spec->restarting, &bpart,
                                      &sim->mesh, &sim->stim, &sim->mesh_info), fail);
#endif
    } else if (read_part) {
#if HS_HAS_MPI
        /* the spec refused the runs it cannot take (hs_mesh_part_read_unfit), alike on every rank */
        if (spec->mesh.cache_parts) hs_log(1, "mesh: mesh.cache_parts: not for this run: every rank reads its block "
                                              "of the file (parallel.read = \"ranks\")\n");
        HS_CALL_GOTO(hs_mesh_part_read(&spec->mesh, spec->partitioner, spec->stimuli, spec->n_stimuli,
                                       spec->output_enabled || spec->restarting, &bpart, &sim->mesh, &sim->stim,
                                       &sim->mesh_info), fail);
#endif
    } else if (scatter) {
#if HS_HAS_MPI
        if (spec->mesh.cache_parts && spec->mesh.cache && spec->mesh.cache_dir[0]) {
            const char *why = hs_mesh_cache_parts_unfit(spec->stimuli, spec->n_stimuli, spec->n_regions);
            int hit = 0;
            if (why) hs_log(1, "mesh: mesh.cache_parts: not for this run: %s\n", why);
            else HS_CALL_GOTO(hs_mesh_cache_parts_load(&spec->mesh, spec->partitioner->name, spec->stimuli,
                                                       spec->n_stimuli, &bpart, &sim->mesh, &sim->stim,
                                                       &sim->mesh_info, &hit), fail);
            own_parts = hit;
            scatter = !hit;
            store_parts = !why && !hit;
        }
#endif
        if (scatter) HS_CALL_GOTO(hs_mesh_part_root_build(&spec->mesh, &sim->mesh, &sim->mesh_info), fail);
    } else if (spec->distributed) {
        HS_CALL_GOTO(hs_mesh_build_bcast(&spec->mesh, &sim->mesh, &sim->mesh_info), fail);
    } else {
        HS_CALL_GOTO(hs_mesh_build(&spec->mesh, &sim->mesh, &sim->mesh_info), fail);
    }
    sim->setup.mesh = hs_wtime() - t0;
    /* the node order's time where it ran: not from the cache, and in a distributed run on rank 0 */
    sim->setup.mesh_order = sim->mesh_info.from_cache || (spec->distributed && spec->rank != 0)
                                ? 0.0 : sim->mesh_info.seconds_reorder;
#if HS_HAS_MPI
    if (own_parts) sim->setup.mesh -= bpart.partition + bpart.scatter; /* reported as partition and scatter */
#endif
    hs_problem_opts po;
    problem_opts(spec, &po);
    double tp = hs_wtime();
    /* a distributed run builds the global pattern only for a partitioner that reads it (metis,
     * nonzeros), on rank 0, which alone partitions, or for a format that renumbers the mesh: the
     * ranks' views come from the elements */
    int one_rank = 0; /* one rank over a backend that runs the serial plan there: its policy times kernels on the pattern */
#if HS_HAS_MPI
    one_rank = spec->distributed && hs_backend_mpi_ranks() == 1 && sim->backend_entry->part &&
               sim->backend_entry->part->one_rank_serial;
#endif
#if HS_HAS_MPI
    if ((box_part || read_part) && one_rank) /* one rank's block is the whole mesh, in the serial numbering */
        HS_CALL_GOTO(hs_csr_from_tets(bpart.lmesh->n_nodes, bpart.lmesh->n_elems, bpart.lmesh->tets, &pattern), fail);
#endif
    if (!own_parts &&
        (!spec->distributed || !spec->partitioner || one_rank || (spec->partitioner->needs_pattern && spec->rank == 0)))
        HS_CALL_GOTO(hs_csr_from_tets(sim->mesh->n_nodes, sim->mesh->n_elems, sim->mesh->tets, &pattern), fail);
    sim->setup.pattern = hs_wtime() - tp;
    /* a distributed run's plan on several ranks reads no pattern (rank 0 may hold one, the others not);
     * its refusals (the config's, alike on every rank) are said once, by rank 0 */
    const hs_status rp = resolve_plan(spec, sim, pattern, &po);
    HS_CALL_GOTO(spec->distributed ? hs_par_agree(rp) : rp, fail);
    if ((own_parts || scatter) && po.exec.spmv->node_order)
        HS_CALL_GOTO(hs_par_agree(HS_FAIL(HS_ERR_CONFIG, "solver.spmv: \"%s\" renumbers the whole mesh, which a run "
                                          "whose ranks hold only their parts never builds; name another kernel, or "
                                          "parallel.partition = \"metis\" with parallel.read = \"root\"",
                                          po.exec.spmv->name)), fail);
    if (!pattern && po.exec.spmv->node_order) {
        tp = hs_wtime();
        HS_CALL_GOTO(hs_csr_from_tets(sim->mesh->n_nodes, sim->mesh->n_elems, sim->mesh->tets, &pattern), fail);
        sim->setup.pattern += hs_wtime() - tp;
    }
    HS_CALL_GOTO(format_order(sim, &po, &pattern), fail);
    tp = hs_wtime();
    /* stimulus sites hold element indices: only now is the element numbering final (the box's
     * ranks found theirs on their blocks) */
    const int whole = !own_parts && (!scatter || spec->rank == 0); /* this rank holds the whole mesh */
    if (!own_parts) {
        st = whole ? hs_stim_set_create(sim->mesh, spec->stimuli, spec->n_stimuli, &sim->stim)
                   : hs_mesh_part_sites(spec->stimuli, spec->n_stimuli, &sim->stim);
        /* rank 0's errors in the sites (and the regions below) are every rank's: the others find none */
        if (scatter) st = hs_par_agree(st);
        HS_CALL_GOTO(st, fail);
    }
    if (spec->n_stimuli == 0) hs_warn("no stimulus configured: the tissue stays at rest");
    {
        char wbuf[4096];
        if (hs_stim_set_warnings(sim->stim, spec->t_end, wbuf, sizeof wbuf) > 0)
            for (char *line = strtok(wbuf, "\n"); line; line = strtok(NULL, "\n")) hs_warn("%s", line);
    }
    if (spec->n_regions > 0 && whole) {
        st = hs_region_set_create(sim->mesh, spec->regions, spec->n_regions, &spec->model_prm, spec->d_iso,
                                  spec->d_ani, &sim->regions);
        if (st == HS_OK) st = report_regions(spec, sim);
        if (scatter) st = hs_par_agree(st);
        HS_CALL_GOTO(st, fail);
        po.regions = sim->regions;
    } else if (spec->n_regions > 0 && scatter) {
        HS_CALL_GOTO(hs_par_agree(HS_OK), fail);
    }
#if HS_HAS_MPI
    if (spec->n_regions > 0 && (box_part || read_part)) { /* each rank on its part: elements by centroid or marker */
        HS_CALL_GOTO(hs_mesh_part_box_regions(spec, &bpart), fail);
        po.regions = bpart.lreg; /* the whole mesh's table on every rank */
    }
#endif
#if HS_HAS_MPI
    if (scatter) {
        /* rank 0 partitions (with the pattern, where the partitioner reads one) and sends the parts */
        double t1 = hs_wtime();
        int32_t *owner = NULL;
        const int ranks = hs_backend_mpi_ranks();
        st = HS_OK;
        if (spec->rank == 0) st = HS_ALLOC(owner, (size_t)sim->mesh->n_nodes + 1, "partition");
        if (spec->partitioner->parallel) st = hs_par_agree(st); /* ptscotch: every rank partitions */
        if (st == HS_OK)
            st = hs_partition_nodes_root(spec->partitioner, pattern, sim->mesh->n_nodes, sim->mesh->n_elems,
                                         sim->mesh->tets, ranks, spec->rank == 0, owner);
        /* checkpoints name the mesh by its fingerprint: rank 0's, for every rank */
        if (spec->rank == 0 && st == HS_OK && (spec->output_enabled || spec->restarting || store_parts))
            sim->mesh->fingerprint = hs_mesh_fingerprint(sim->mesh);
        st = hs_par_agree(st);
        const double tpart = hs_wtime() - t1;
        if (st == HS_OK)
            st = hs_mesh_part_scatter(sim->mesh, sim->stim, sim->regions, owner, sim->mesh->n_nodes, spec->stimuli,
                                      spec->n_stimuli, &sim->mesh->fingerprint, &bpart);
        free(owner);
        HS_CALL_GOTO(st, fail);
        bpart.n_elems_global = sim->mesh->n_elems;
        bpart.partition += tpart;
        if (store_parts) { /* mesh.cache_parts: a rerun on as many ranks reads these parts */
            char entry[sizeof sim->mesh_info.cache_path];
            HS_CALL_GOTO(hs_mesh_cache_parts_store(&spec->mesh, spec->partitioner->name, &bpart, sim->mesh->n_elems,
                                                   sim->mesh->fingerprint, &sim->mesh_info, entry, sizeof entry), fail);
            if (entry[0] && !sim->mesh_info.from_cache)
                snprintf(sim->mesh_info.cache_path, sizeof sim->mesh_info.cache_path, "%s", entry);
        }
        /* the same table on every rank; rank 0's regions of the whole mesh are sent: freed */
        po.regions = bpart.lreg;
        hs_region_set_destroy(&sim->regions);
        /* sent: the maps files are written from the ranks' parts too (sim/run_output.c, sim/beats.c) */
        if (spec->rank == 0) hs_mesh_part_hollow(sim->mesh);
        hs_csr_destroy(&pattern); /* it served the partition */
    }
#endif
    if (spec->distributed) HS_CALL_GOTO(problem_outline(sim->mesh, sim->stim, &po, &pattern, &sim->prob), fail);
    else HS_CALL_GOTO(hs_problem_create(sim->mesh, sim->stim, &po, &pattern, &sim->prob), fail);
    if (sim->prob->pattern)
        hs_log(1, "matrix: %d rows, %d nonzeros (%.1f per row)\n", sim->prob->pattern->n_rows,
               sim->prob->pattern->nnz, (double)sim->prob->pattern->nnz / sim->prob->pattern->n_rows);
    else
        hs_log(1, "matrix: %d rows (no global pattern: each rank builds its rows; the partition report has them)\n",
               sim->mesh->n_nodes);
    double tb = hs_wtime();
    sim->setup.problem = tb - tp;
#if HS_HAS_MPI
    if (scatter) sim->setup.problem -= bpart.partition + bpart.scatter; /* reported as partition and scatter */
#endif
    if (spec->distributed) {
#if HS_HAS_MPI
        HS_CHECK_GOTO(spec->partitioner, fail, HS_ERR_INTERNAL, "distributed run without a partitioner");
        if (own_parts || scatter)
            HS_CALL_GOTO(hs_backend_mpi_create_part(sim->prob, &bpart, spec->partitioner, sim->backend_entry,
                                                    &sim->backend), fail);
        else
            HS_CALL_GOTO(hs_backend_mpi_create(sim->prob, spec->partitioner, sim->backend_entry, &sim->backend), fail);
        /* the global pattern served the partition; nothing reads it afterwards */
        hs_csr_destroy(&sim->prob->pattern);
        hs_mpi_setup_times mt;
        hs_backend_mpi_setup_times(sim->backend, &mt);
        sim->setup.partition = mt.partition;
        sim->setup.scatter = mt.scatter;
        sim->setup.maps = mt.maps;
#else
        HS_CHECK_GOTO(0, fail, HS_ERR_USAGE, "a distributed run needs a build with MPI (HS_USE_MPI)");
#endif
    } else {
        HS_CALL_GOTO(sim->backend_entry->create(sim->prob, &sim->backend), fail);
    }
    /* a backend without the splitting ops would run its Newton step in silence */
    HS_CHECK_GOTO(spec->scheme.kind != HS_SCHEME_SPLITTING || (sim->backend->ops->react && sim->backend->ops->diffuse),
                  fail, HS_ERR_CONFIG, "solver.scheme = \"splitting\": the %s backend does not run the splitting scheme "
                  "yet; use solver.backend = \"cpu\" or solver.scheme = \"newton\"", sim->backend->ops->name);
    /* the parts made before (box, scatter) were timed outside this interval */
    sim->setup.backend = hs_wtime() - tb - sim->setup.maps -
                         (own_parts || scatter ? 0.0 : sim->setup.partition + sim->setup.scatter);
    sim->setup.peak_rss = hs_peak_rss_bytes();
    sim->setup.whole_mesh = hs_mesh_alloc_peak_nodes() >= sim->mesh->n_nodes;
    hs_log(1, "backend: %s\n", sim->backend->description);
    hs_log(2, "set-up took %.3f s\n", hs_wtime() - t0);
    return HS_OK;
fail:
#if HS_HAS_MPI
    hs_backend_mpi_part_free(&bpart);
#endif
    hs_csr_destroy(&pattern);
    hs_sim_destroy(sim);
    return st;
}

void hs_sim_destroy(hs_sim *sim)
{
    free(sim->step_amp);
    sim->step_amp = NULL;
    hs_region_set_destroy(&sim->regions);
    hs_backend_destroy(&sim->backend);
    hs_problem_destroy(&sim->prob);
    hs_stim_set_destroy(&sim->stim);
    hs_mesh_destroy(&sim->mesh);
}

hs_status hs_sim_steps(hs_sim *sim, long k0, double dt_ms, int n, int *done, hs_step_stats *stats)
{
    hs_backend *b = sim->backend;
    *done = 0;
    HS_CHECK(b->ops->steps_device, HS_ERR_INTERNAL, "the %s backend cannot run steps on the device", b->ops->name);
    const int ns = sim->stim->n_sites;
    HS_CHECK(ns <= HS_SPEC_MAX_STIMULI, HS_ERR_INTERNAL, "too many stimulus sites");
    HS_CHECK(n >= 1 && n <= HS_STEPS_DEVICE_MAX, HS_ERR_INTERNAL, "%d steps in one launch", n);
    if (!sim->step_amp)
        HS_CALL(HS_ALLOC(sim->step_amp, (size_t)HS_STEPS_DEVICE_MAX * (ns > 0 ? ns : 1), "stimulus amplitudes per step"));
    double *amp = sim->step_amp;
    for (int j = 0; j < n; ++j) { /* t = k dt and t + dt, as the time loop passes them to hs_sim_step */
        const double t = (k0 + j) * dt_ms;
        hs_stim_set_amplitudes(sim->stim, t, t + dt_ms, amp + (size_t)j * ns);
    }
    return b->ops->steps_device(b, k0, dt_ms, n, amp, done, stats);
}

hs_status hs_sim_step(hs_sim *sim, double t_ms, double dt_ms, hs_step_stats *stats)
{
    double amp[HS_SPEC_MAX_STIMULI + 1];
    HS_CHECK(sim->stim->n_sites <= HS_SPEC_MAX_STIMULI, HS_ERR_INTERNAL, "too many stimulus sites");
    hs_stim_set_amplitudes(sim->stim, t_ms, t_ms + dt_ms, amp);
    return hs_scheme_step(sim->backend, t_ms, dt_ms, amp, stats);
}
