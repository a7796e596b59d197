"""Write the unit cube (6 tetrahedra, region and fibre cell arrays) with VTK's own writers, as
ParaView saves it: legacy .vtk (the reference) and .vtu in ascii, binary (zlib), appended raw
(zlib, UInt64 header), appended uncompressed and appended base64 (zlib); and the cube's surface as .vtp (binary, zlib).
Usage: pvpython vtu_paraview.py DIR"""
import sys
from vtkmodules.vtkCommonCore import vtkPoints, vtkIntArray, vtkDoubleArray
from vtkmodules.vtkCommonDataModel import vtkUnstructuredGrid, vtkPolyData, vtkCellArray, VTK_TETRA
from vtkmodules.vtkIOLegacy import vtkUnstructuredGridWriter
from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridWriter, vtkXMLPolyDataWriter

d = sys.argv[1]
pts = vtkPoints()
for i in range(8):
    pts.InsertNextPoint(i & 1, (i >> 1) & 1, (i >> 2) & 1)
tets = [(0, 1, 3, 7), (0, 2, 6, 7), (0, 4, 5, 7), (0, 1, 7, 5), (0, 2, 7, 3), (0, 4, 7, 6)]
g = vtkUnstructuredGrid()
g.SetPoints(pts)
region = vtkIntArray(); region.SetName("region")
fib = vtkDoubleArray(); fib.SetName("fibers"); fib.SetNumberOfComponents(3)
for e, t in enumerate(tets):
    g.InsertNextCell(VTK_TETRA, 4, t)
    region.InsertNextValue(1 if e < 3 else 2)
    fib.InsertNextTuple3(1.0 + e, 0.5, 0.25)
g.GetCellData().AddArray(region)
g.GetCellData().AddArray(fib)
w = vtkUnstructuredGridWriter(); w.SetFileName(d + "/ref.vtk"); w.SetInputData(g); w.Write()
for name, mode, comp, h64 in [("ascii", 0, False, False), ("binary", 1, True, False),
                              ("appended_zlib", 2, True, True), ("appended_raw", 2, False, False),
                              ("appended_base64", 3, True, False)]:
    w = vtkXMLUnstructuredGridWriter()
    w.SetFileName("%s/%s.vtu" % (d, name)); w.SetInputData(g); w.SetDataMode(min(mode, 2))
    if mode >= 2: w.SetEncodeAppendedData(mode == 3)
    if comp: w.SetCompressorTypeToZLib()
    else: w.SetCompressorTypeToNone()
    if h64: w.SetHeaderTypeToUInt64()
    w.Write()
quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
p = vtkPolyData(); p.SetPoints(pts)
polys = vtkCellArray()
for q in quads:
    polys.InsertNextCell(4, q)
p.SetPolys(polys)
w = vtkXMLPolyDataWriter(); w.SetFileName(d + "/cube.vtp"); w.SetInputData(p)
w.SetDataModeToBinary(); w.SetCompressorTypeToZLib(); w.Write()
