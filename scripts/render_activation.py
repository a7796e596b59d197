"""Render the activation map (last frame) of a heartsim .vtk.series to a PNG.

usage: pvpython scripts/render_activation.py RUN.vtk.series OUT.png [TITLE]
Headless: xvfb-run -a pvpython scripts/render_activation.py ...  (Debian: paraview python3-paraview xvfb)
"""
import sys

from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetColorTransferFunction, GetScalarBar,
                             OpenDataFile, ResetCamera, SaveScreenshot, Show)

series, out = sys.argv[1], sys.argv[2]
title = sys.argv[3] if len(sys.argv) > 3 else "activation time (ms)"
r = OpenDataFile(series)
t = r.TimestepValues[-1]
v = GetActiveViewOrCreate("RenderView")
v.ViewSize = [1000, 500]
v.ViewTime = t
d = Show(r, v)
ColorBy(d, ("POINTS", "activation"))
lut = GetColorTransferFunction("activation")
lut.ApplyPreset("Turbo", True)
rng = r.PointData["activation"].GetRange()
lut.RescaleTransferFunction(max(0.0, rng[0]), rng[1])
d.SetScalarBarVisibility(v, True)
bar = GetScalarBar(lut, v)
bar.Title = title
bar.ComponentTitle = ""
bar.TitleColor = [0, 0, 0]
bar.LabelColor = [0, 0, 0]
v.OrientationAxesVisibility = 1
try:
    v.UseColorPaletteForBackground = 0
except AttributeError:
    pass
v.Background = [1, 1, 1]
# look at the box from the (-x, -y, +z) side, so the corner at the origin faces the viewer
b = r.GetDataInformation().GetBounds()
c = [(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2]
size = max(b[1] - b[0], b[3] - b[2], b[5] - b[4])
v.CameraFocalPoint = c
v.CameraPosition = [c[0] - 0.6 * size, c[1] - 1.3 * size, c[2] + 0.9 * size]
v.CameraViewUp = [0, 0, 1]
ResetCamera(v)
SaveScreenshot(out, v, ImageResolution=[1000, 500])
print("wrote", out, "(t = %g ms, activation %g .. %g ms)" % (t, rng[0], rng[1]))
