/**
 * @file hs_mesh_export.h
 * @brief `heartsim mesh`'s run-ready copy of the mesh: a Gmsh 2.2 ASCII file (nodes in the run's
 * numbering, the labelled boundary triangles with their label ids as physical groups and the label
 * names as $PhysicalNames, the tetrahedra with their region as physical group) and, when the mesh has
 * fibres, a text file with one fibre per tetrahedron in the same order. Read back with
 * mesh.source = "file" and fibers.type = "file" (fibers.location = "element") it is the same mesh
 * with the same labels and fibres, node for node (mesh.reorder = "none" keeps the numbering).
 */
#ifndef HS_MESH_EXPORT_H
#define HS_MESH_EXPORT_H

#include "hs_mesh.h"

/** @brief Write @p m as Gmsh 2.2 ASCII to @p path (coordinates with 17 significant digits). */
hs_status hs_mesh_export_gmsh(const char *path, const hs_mesh *m);

/**
 * @brief Write @p m as openCARP files PREFIX.pts (coordinates in um, openCARP's unit: read back with
 * mesh.scale = 0.001, the same mesh to the last bit or two of each coordinate), PREFIX.elem ("Tt" and
 * the region as the tag) and, when the fibres are not one direction everywhere, PREFIX.lon (one per
 * tetrahedron). The format every rank of a distributed run reads a block of (parallel.read = "ranks").
 * Boundary labels are not carried (openCARP keeps surfaces in other files): the Gmsh copy has them.
 * @param[out] uniform 1 when no .lon was written (no fibres, or one direction: @p dir, normalised as
 * the mesh holds it).
 */
hs_status hs_mesh_export_opencarp(const char *prefix, const hs_mesh *m, int *uniform, double dir[3]);

/** @brief Write the fibres of @p m, one "fx fy fz" line per tetrahedron, to @p path. */
hs_status hs_mesh_export_fibers(const char *path, const hs_mesh *m);

#endif
