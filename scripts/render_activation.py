"""Render the activation map (last frame) of a heartsim .vtk.series to a PNG.

usage: pvpython scripts/render_activation.py RUN.vtk.series OUT.png [TITLE] [box|lv]
  box (default): the slab seen from its (-x, -y, +z) corner;
  lv: the ventricle cut open by the plane y = 0 (the half y > 0 kept), seen from -y, so the
      endocardium and the transmural spread are both visible.
Headless: xvfb-run -a pvpython scripts/render_activation.py ...  (Debian: paraview python3-paraview xvfb)
"""
import sys

from paraview.simple import (Clip, ColorBy, GetActiveViewOrCreate, GetColorTransferFunction, GetScalarBar,
                             Hide, OpenDataFile, ResetCamera, SaveScreenshot, Show)

series, out = sys.argv[1], sys.argv[2]
title = sys.argv[3] if len(sys.argv) > 3 else "activation time (ms)"
view = sys.argv[4] if len(sys.argv) > 4 else "box"
r = OpenDataFile(series)
t = r.TimestepValues[-1]
v = GetActiveViewOrCreate("RenderView")
v.ViewSize = [1000, 500] if view == "box" else [700, 800]
v.ViewTime = t
src = r
if view == "lv":
    src = Clip(Input=r)
    src.ClipType = "Plane"
    src.ClipType.Origin = [0.0, 0.0, 0.0]
    src.ClipType.Normal = [0.0, -1.0, 0.0]  # keep y >= 0
    try:
        src.Crinkleclip = 0
    except AttributeError:
        pass
d = Show(src, v)
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
b = r.GetDataInformation().GetBounds()
c = [(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2]
size = max(b[1] - b[0], b[3] - b[2], b[5] - b[4])
v.CameraFocalPoint = c
if view == "lv":  # look at the cut face from -y, a little from below, apex down
    v.CameraPosition = [c[0] + 0.35 * size, c[1] - 2.0 * size, c[2] - 0.25 * size]
else:  # look at the box from the (-x, -y, +z) side, so the corner at the origin faces the viewer
    v.CameraPosition = [c[0] - 0.6 * size, c[1] - 1.3 * size, c[2] + 0.9 * size]
v.CameraViewUp = [0, 0, 1]
ResetCamera(v)
SaveScreenshot(out, v, ImageResolution=v.ViewSize)
print("wrote", out, "(t = %g ms, activation %g .. %g ms)" % (t, rng[0], rng[1]))
