#!/usr/bin/env python3
"""What the nodal ODE kernel of each ionic model costs the GPU, read from the compiler (issue 29;
docs/benchmarks.md "The nodal kernels, per model, from the compiler").

  python3 scripts/cellml/nodal_kernel_report.py BUILD_DIR [--arch 90] [--nvcc-flag=-DX=Y ...]

compiles backends/cuda/nodal.cu as BUILD_DIR does (its include flags: a CUDA build directory
configured by CMake) for sm_ARCH with `-Xptxas -v`, disassembles it with cuobjdump -sass (on the
PATH, or pip's nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm), and prints one markdown row per model
for its kernel instances: registers, stack frame, spill bytes (ptxas), and the static instruction mix of
the instance bench_1m runs (no stimulus, no regions; its one-substep path; the substep loop for
nsub > 1 is a function of its own, whose stack and spills are listed beside): FP64 (DFMA, DMUL, DADD), MUFU (the
reciprocal seeds of the divisions, rsqrt), CALL (calls of the slow paths of division, reciprocal, sqrt,
pow: taken only for operands out of the fast path's range, each with a BSSY/BSYNC pair around it),
local memory (LDL, STL), and all instructions, counted in the kernel's body up to its EXIT (the
out-of-line subroutines after it, the slow paths and the nsub > 1 loop, are not counted). Static counts:
the nodal form is straight-line code but for those slow paths, so per node each counted instruction runs
once.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def model_names():
    names = []
    with open(os.path.join(ROOT, 'fem', 'models', 'hs_model_list.h')) as f:
        for line in f:
            m = re.match(r'\s*HS_MODEL(?:_NODAL)?\((\w+)\)\s*$', line)
            if m:
                names.append(m.group(1))
    return names


def tool(name):
    p = shutil.which(name)
    if p:
        return p
    try:
        import nvidia  # pip's nvidia-cuda-cuobjdump / nvidia-cuda-nvdisasm
        for d in nvidia.__path__:
            for sub in ('cu13', 'cuda_cuobjdump', 'cuda_nvdisasm'):
                c = os.path.join(d, sub, 'bin', name)
                if os.path.exists(c):
                    return c
    except ImportError:
        pass
    sys.exit('nodal_kernel_report.py: %s not found (PATH, or pip install nvidia-cuda-cuobjdump '
             'nvidia-cuda-nvdisasm)' % name)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('build', help='a CUDA build directory (CMake, HS_USE_CUDA on)')
    ap.add_argument('--arch', default='90')
    ap.add_argument('--nvcc-flag', action='append', default=[], help='an extra nvcc flag (e.g. -DHS_NODAL_MIN_BLOCKS=3)')
    ap.add_argument('--keep', default=None, help='keep the ptxas log and the SASS in this folder')
    a = ap.parse_args(argv)
    rsp = os.path.join(os.path.abspath(a.build), 'backends', 'cuda', 'CMakeFiles', 'hs_backend_cuda.dir', 'includes_CUDA.rsp')
    if not os.path.exists(rsp):
        sys.exit('nodal_kernel_report.py: %s: not a CUDA build directory (no %s)' % (a.build, rsp))
    nvcc = shutil.which('nvcc') or '/usr/local/cuda/bin/nvcc'
    tmp = a.keep or tempfile.mkdtemp()
    os.makedirs(tmp, exist_ok=True)
    obj = os.path.join(tmp, 'nodal.o')
    cmd = [nvcc, '--options-file', rsp, '-O3', '-DNDEBUG', '--generate-code=arch=compute_%s,code=[sm_%s]' % (a.arch, a.arch),
           '-std=c++17', '-x', 'cu', '-c', os.path.join(ROOT, 'backends', 'cuda', 'nodal.cu'), '-o', obj,
           '-Xptxas', '-v'] + a.nvcc_flag
    r = subprocess.run(cmd, cwd=os.path.join(a.build, 'backends', 'cuda'), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('nodal_kernel_report.py: nvcc failed:\n' + r.stderr)
    log = r.stderr
    env = dict(os.environ)
    env['PATH'] = os.path.dirname(tool('nvdisasm')) + os.pathsep + env.get('PATH', '')
    sass = subprocess.run([tool('cuobjdump'), '-sass', obj], capture_output=True, text=True, env=env, check=True).stdout
    if a.keep:
        open(os.path.join(tmp, 'ptxas.txt'), 'w').write(log)
        open(os.path.join(tmp, 'nodal.sass'), 'w').write(sass)

    kre = re.compile(r'k_nodalILi(\d+)ELb([01])ELb([01])E')
    lre = re.compile(r'substeps_ctILi(\d+)E')
    res = {}  # (id, stim, het) -> dict; (id, 'loop') -> the substep loop's function
    cur = None
    for line in log.splitlines():
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            k = kre.search(m.group(1))
            cur = tuple(int(x) for x in k.groups()) if k else None
            lo = lre.search(m.group(1))
            if lo:
                cur = (int(lo.group(1)), 'loop')
            continue
        if cur is None:
            continue
        m = re.search(r'(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads', line)
        if m:
            res.setdefault(cur, {}).update(stack=int(m.group(1)), st=int(m.group(2)), ld=int(m.group(3)))
            if cur[1] == 'loop':
                cur = None
            continue
        m = re.search(r'Used (\d+) registers', line)
        if m:
            res.setdefault(cur, {})['regs'] = int(m.group(1))
            cur = None
    mix = {}
    parts = re.split(r'\n\s*Function : ', sass)
    for p in parts[1:]:
        k = kre.search(p.split('\n', 1)[0])
        if not k:
            continue
        # the kernel's body, up to its first unpredicated EXIT: the out-of-line subroutines after it (the
        # slow paths, the nsub > 1 loop) are not counted
        body = re.split(r'/\*[0-9a-f]{4,}\*/\s+EXIT\s*;', p)[0]
        ops = re.findall(r'/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)(\.[A-Z0-9_.]+)?', body)
        c = {}
        for op, suf in ops:
            c[op] = c.get(op, 0) + 1
            if op == 'MUFU':
                c['MUFU' + suf] = c.get('MUFU' + suf, 0) + 1
        c['ALL'] = len(ops)
        mix[tuple(int(x) for x in k.groups())] = c
    names = model_names()
    print('| model | registers (bench instance; + stimulus, regions) | stack / spill st / ld bytes (bench instance; '
          'nsub > 1 loop) | DFMA | DMUL | DADD | MUFU | CALL | BSSY | LDL / STL | instructions |')
    print('|---|---|---|---|---|---|---|---|---|---|---|')
    for i, n in enumerate(names):
        b = res.get((i, 0, 0))
        if b is None:
            continue
        others = [res.get(key, {}).get('regs', '-') for key in ((i, 1, 0), (i, 0, 1))]
        lp = res.get((i, 'loop'), {})
        c = mix.get((i, 0, 0), {})
        print('| %s | %d (%s) | %d / %d / %d; %s / %s / %s | %d | %d | %d | %d | %d | %d | %d / %d | %d |' % (
            n, b['regs'], ', '.join(str(x) for x in others), b['stack'], b['st'], b['ld'], lp.get('stack', '-'),
            lp.get('st', '-'), lp.get('ld', '-'), c.get('DFMA', 0),
            c.get('DMUL', 0), c.get('DADD', 0), c.get('MUFU', 0), c.get('CALL', 0), c.get('BSSY', 0), c.get('LDL', 0),
            c.get('STL', 0), c.get('ALL', 0)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
