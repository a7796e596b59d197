/*
 * How a time step's Newton iteration runs (config key solver.step): one line each, expanded into enum
 * hs_step_mode (fem/hs_exec_plan.h, values in list order) and into the table behind
 * hs_step_mode_lookup / hs_step_mode_name (fem/exec_plan.c). "auto" is no entry: the backend's policy
 * resolves it at set-up (hs_backend_entry.resolve_plan). A backend without a mode runs the host loop
 * (kernels). HS_STEP_MODE(enumerator, name, summary). Append new modes at the end.
 */
HS_STEP_MODE(HS_STEP_KERNELS, "kernels",
             "the host runs the Newton loop of a step: one synchronisation per Newton iteration")
HS_STEP_MODE(HS_STEP_GRAPH, "graph",
             "the Newton loop of a step on the device (hs_backend_ops.newton_device: a CUDA graph with a "
             "device-side WHILE node): one synchronisation per step; under solver.scheme = \"splitting\" the "
             "steps up to the next frame, checkpoint or sample as one CUDA graph (hs_backend_ops.steps_device)")
HS_STEP_MODE(HS_STEP_PERSISTENT, "persistent",
             "the steps up to the next frame, checkpoint or sample as one cooperative kernel "
             "(hs_backend_ops.steps_device)")
