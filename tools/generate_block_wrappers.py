#!/usr/bin/env python3
"""Generate vecampfit's numpy wrappers of block routines, and their reference table.

Reads the registry ``tools/block_routines.py`` and the signatures of the
block routines from ``vecampfit/<module>.pxd`` (``vecampfit/<module>/__init__.pxd``
for a package such as ``vecampfit.real``), and writes

* with ``--module``: a Cython include file (from the Tempita template
  ``tools/block_wrappers.pxi.tp``): ``_<module>_blocks.pxi``, which
  ``vecampfit/_<module>.pyx`` includes, or ``_kernels_blocks.pxi``, which
  ``vecampfit/<module>/_kernels.pyx`` includes: for each registered routine
  NAME of the module, ``NAME_kernel(inputs..., outputs...)`` applies NAME over
  whole arrays, in blocks of ``VECTOR_LENGTH`` with a padded last block;
* with ``--docs``: the reStructuredText page ``docs/api/block_routines.rst``,
  the table of every block routine that the ``.pxd`` files declare.

Usage::

    generate_block_wrappers.py --module kinematics --pxd vecampfit/kinematics.pxd \\
        --template tools/block_wrappers.pxi.tp --output _kinematics_blocks.pxi
    generate_block_wrappers.py --module real --pxd vecampfit/real/__init__.pxd \\
        --template tools/block_wrappers.pxi.tp --output _kernels_blocks.pxi
    generate_block_wrappers.py --docs docs/api/block_routines.rst [--package vecampfit]
"""

import argparse
import importlib.util
import os
import re
from collections import namedtuple

HERE = os.path.dirname(os.path.abspath(__file__))

Argument = namedtuple("Argument", "type name")
# source: the .pxd, relative to vecampfit/.
Signature = namedtuple("Signature", "module source returns name arguments")
Wrapper = namedtuple("Wrapper", "name size loop_parameters parameters arguments scratch "
                                "declarations loads stores call docstring")
# A struct of block vectors (2x2 matrices, LU factors): its fields in the
# order of the .pxd, each (name, complex?).
Struct = namedtuple("Struct", "name fields")

# Integer vectors (vecampfit.real): one integer per event.
INTEGER_TYPES = ("int32_t", "int64_t", "uint32_t")
# Vectors of one value per event, real or integer.
LANE_TYPES = ("floating", "double") + INTEGER_TYPES
# The block types of vecampfit: a routine with a pointer to one of them works
# on VECTOR_LENGTH events at once.
BLOCK_TYPES = LANE_TYPES + ("complex_vector", "complex_matrix_2x2", "complex_lu_2x2")
SCALAR_TYPES = ("floating", "double", "float", "int", "bint")
# Names the generated loops use themselves.
RESERVED = ("size", "block", "start", "lanes", "i")

_ROUTINE = re.compile(r"^cdef inline (\w+) (\w+)\((.*?)\)\s*noexcept", re.S | re.M)
_STRUCT = re.compile(r"^cdef struct (\w+)_float64:\n((?:    .*\n)+)", re.M)


def load_registry(path=os.path.join(HERE, "block_routines.py")):
    spec = importlib.util.spec_from_file_location("_vecampfit_block_routines", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pxd_module(path):
    """(module, source) of ``vecampfit/<module>.pxd`` or ``vecampfit/<module>/__init__.pxd``."""
    folder, name = os.path.split(os.path.abspath(path))
    if name == "__init__.pxd":
        module = os.path.basename(folder)
        return module, f"{module}/__init__.pxd"
    return name[:-len(".pxd")], name


def pxd_files(package):
    """(module, path) of every ``.pxd`` of the package that may declare block routines, sorted."""
    found = [os.path.join(package, f) for f in os.listdir(package)
             if f.endswith(".pxd") and not f.startswith("_")]
    found += [os.path.join(package, d, "__init__.pxd") for d in os.listdir(package)
              if os.path.isfile(os.path.join(package, d, "__init__.pxd"))]
    return sorted((pxd_module(path)[0], path) for path in found)


def parse_pxd(path):
    """Return {name: Signature} of the public block routines declared in a ``.pxd``."""
    module, source = pxd_module(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    routines = {}
    for returns, name, params in _ROUTINE.findall(text):
        if name.startswith("_"):
            continue
        arguments = []
        for param in " ".join(params.split()).split(","):
            m = re.fullmatch(r"\s*(.*?)\s*(\w+)\s*", param)
            arguments.append(Argument(m.group(1).replace(" *", "*").replace("*", " *"), m.group(2)))
        if any(_is_block_pointer(a.type) for a in arguments):
            routines[name] = Signature(module, source, returns, name, arguments)
    return routines


def parse_structs(path):
    """Return {name: Struct} of the block structs declared in a ``.pxd`` (float64 layout)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    structs = {}
    for name, body in _STRUCT.findall(text):
        fields = []
        for line in body.splitlines():
            m = re.fullmatch(r"\s*(\w+) (\w+)(\[VECTOR_LENGTH\])?\s*", line)
            fields.append((m.group(2), m.group(1) == "complex_vector_float64"))
        structs[name] = Struct(name, fields)
    return structs


def _is_block_pointer(ctype):
    return ctype.endswith("*") and ctype.replace("const ", "").rstrip(" *") in BLOCK_TYPES


def signature_text(sig):
    """The C declaration of a routine, as the ``.pxd`` writes it."""
    args = ", ".join(f"{a.type}{'' if a.type.endswith('*') else ' '}{a.name}" for a in sig.arguments)
    return f"{sig.returns} {sig.name}({args})"


class _Wrapper:
    """The pieces of one generated wrapper, filled in argument by argument."""

    def __init__(self):
        self.inputs, self.outputs = [], []  # (C or memoryview type, name) of the entry point
        self.scratch = []  # (block type, argument): a block of each precision
        self.declarations, self.pads, self.loads, self.stores, self.call = [], [], [], [], []

    def parameter(self, const, ctype, name):
        target = self.inputs if const else self.outputs
        if (ctype, name) not in target:  # packed arrays are shared by several arguments
            target.append((ctype, name))


def wrapper(registry, routine, sig, structs=None):
    """What the template needs to write the wrapper of one registered routine.

    ``structs`` ({name: Struct}) describes the block structs that ``packed``
    arguments may have.
    """
    specs = dict(routine.arguments)
    unknown = set(specs) - {a.name for a in sig.arguments}
    if unknown:
        raise ValueError(f"{routine.module}.{routine.name}: no argument {sorted(unknown)} in the .pxd")
    w = _Wrapper()
    for a in sig.arguments:
        where = f"{routine.module}.{routine.name}: {a.name}"
        if a.name in RESERVED:
            raise ValueError(f"{where}: the name is reserved")
        spec = specs.get(a.name)
        base = a.type.replace("const ", "").rstrip(" *")
        const = a.type.startswith("const ")
        if isinstance(spec, registry.Computed):
            w.declarations.append(f"cdef {a.type} {a.name} = <{a.type}>({spec.expression})")
            w.call.append(a.name)
        elif not a.type.endswith("*"):
            if a.type not in SCALAR_TYPES:
                raise ValueError(f"{where}: cannot pass a {a.type}")
            w.parameter(True, a.type, a.name)
            w.call.append(a.name)
        elif isinstance(spec, registry.Whole):
            w.parameter(True, "const floating[::1]", a.name)
            w.call.append(f"&{a.name}[0]")
        elif const and not isinstance(spec, (registry.Padded, registry.Vectors, registry.Packed)):
            raise ValueError(f"{where}: an input needs its padding in the registry")
        elif isinstance(spec, registry.Packed):
            _packed(w, a, base, const, spec, (structs or {}).get(base), where)
        elif base == "complex_vector":
            _complex(w, a, const, spec, where)
        elif base == "floating" and isinstance(spec, (registry.Vectors, registry.VectorsOut)):
            _vectors(w, a, const, spec)
        elif base in LANE_TYPES:
            _lanes(w, a, base, const, spec, where)
        else:
            raise ValueError(f"{where}: no wrapper for a {a.type}")
    arguments = w.inputs + w.outputs
    padding = ", ".join(f"{name} = {', '.join(spec.pads)}" for name, spec in routine.arguments.items()
                        if hasattr(spec, "pads"))
    return Wrapper(
        name=routine.name,
        size=next(name for ctype, name in arguments if "[" in ctype),
        loop_parameters=", ".join([f"{t} *{s}_block" for t, s in w.scratch]
                                  + [f"{ctype} {name}" for ctype, name in arguments]),
        parameters=", ".join(f"{ctype} {name}" for ctype, name in arguments),
        arguments=", ".join(name for _, name in arguments),
        scratch=w.scratch, declarations=w.declarations + w.pads, loads=w.loads, stores=w.stores,
        call=", ".join(w.call),
        docstring=(f"{routine.name} of vecampfit/{sig.source} over whole arrays"
                   + (f" (padding lanes: {padding})." if padding else ".")),
    )


def _lanes(w, a, ctype, const, spec, where):
    """One real or integer value per event: an input, an output or an array updated in place."""
    if spec is not None and len(spec.pads) != 1:
        raise ValueError(f"{where}: a {ctype} argument takes one pad")
    helper = "_integer" if ctype in INTEGER_TYPES else ""
    block = a.name + "_block"
    w.declarations.append(f"cdef {ctype} {block}[VECTOR_LENGTH]")
    if spec is not None:  # an input, or an array updated in place
        w.pads.append(f"cdef {ctype} {a.name}_pad = <{ctype}>({spec.pads[0]})")
        w.loads.append(f"_load_padded{helper}({block}, {a.name}, start, lanes, {a.name}_pad)")
    if not const:
        w.stores.append(f"_store_lanes{helper}({a.name}, {block}, start, lanes)")
    w.parameter(const, f"const {ctype}[::1]" if const else f"{ctype}[::1]", a.name)
    w.call.append(block)


def _vectors(w, a, const, spec):
    """A (n, c) array of vectors, loaded as c blocks of VECTOR_LENGTH."""
    block = a.name + "_block"
    columns = len(spec.pads) if const else spec.components
    w.declarations.append(f"cdef floating {block}[{columns} * VECTOR_LENGTH]")
    for j in range(columns):
        part = f"&{block}[{j} * VECTOR_LENGTH]" if j else block
        if const:
            w.loads.append(f"_load_padded_column({part}, {a.name}, start, lanes, {j}, {spec.pads[j]})")
        else:
            w.stores.append(f"_store_lanes_column({a.name}, {part}, start, lanes, {j})")
    w.parameter(const, "const floating[:, ::1]" if const else "floating[:, ::1]", a.name)
    w.call.append(block)


def _complex(w, a, const, spec, where):
    """A complex vector from (to) separate arrays of real and imaginary parts."""
    if spec is not None and len(spec.pads) != 2:
        raise ValueError(f"{where}: a complex argument takes two pads, (re, im)")
    block = a.name + "_block"
    memview = "const floating[::1]" if const else "floating[::1]"
    w.parameter(const, memview, a.name + "_re")
    w.parameter(const, memview, a.name + "_im")
    w.scratch.append(("complex_vector", a.name))
    if spec is not None:  # an input, or an array updated in place
        w.pads.append(f"cdef floating {a.name}_pad_re = <floating>({spec.pads[0]})")
        w.pads.append(f"cdef floating {a.name}_pad_im = <floating>({spec.pads[1]})")
        w.loads.append(f"_load_padded_complex({block}, {a.name}_re, {a.name}_im, start, lanes, "
                       f"{a.name}_pad_re, {a.name}_pad_im)")
    if not const:
        w.stores.append(f"_store_lanes_complex({a.name}_re, {a.name}_im, {block}, start, lanes)")
    w.call.append(block)


def _packed(w, a, base, const, spec, struct, where):
    """A complex vector, or a struct of them, in (re, im) column pairs of a 2-D array."""
    if base == "complex_vector":
        pairs, real_fields = [(a.name + "_block", spec.column)], []
    elif struct is not None:
        complex_fields = [f for f, is_complex in struct.fields if is_complex]
        pairs = [(f"&{a.name}_block.{f}", spec.column + 2 * j) for j, f in enumerate(complex_fields)]
        real_fields = [f for f, is_complex in struct.fields if not is_complex]
    else:
        raise ValueError(f"{where}: {a.type} is not a block struct of this .pxd")
    if const and len(spec.pads) != 2 * len(pairs):
        raise ValueError(f"{where}: needs {2 * len(pairs)} pads, (re, im) of each pair")
    if set(real_fields) != set(spec.real_fields):
        raise ValueError(f"{where}: name the arrays of its real fields {real_fields}")
    memview = "const floating" if const else "floating"
    w.parameter(const, memview + "[:, ::1]", spec.array)
    w.scratch.append((base, a.name))
    for j, (block, column) in enumerate(pairs):
        if const:
            w.loads.append(f"_load_padded_complex_columns({block}, {spec.array}, start, lanes, {column}, "
                           f"{spec.pads[2 * j]}, {spec.pads[2 * j + 1]})")
        else:
            w.stores.append(f"_store_lanes_complex_columns({spec.array}, {block}, start, lanes, {column})")
    for field in real_fields:
        array = spec.real_fields[field][0]
        w.parameter(const, memview + "[::1]", array)
        if const:
            w.loads.append(f"_load_padded_field({a.name}_block.{field}, {array}, start, lanes, "
                           f"{spec.real_fields[field][1]})")
        else:
            w.stores.append(f"_store_lanes_field({array}, {a.name}_block.{field}, start, lanes)")
    w.call.append(a.name + "_block")


def render_module(registry, module, pxd, template):
    from Cython.Tempita import Template

    signatures = parse_pxd(pxd)
    structs = parse_structs(pxd)
    source = pxd_module(pxd)[1]
    routines = []
    for r in registry.ROUTINES:
        if r.module != module:
            continue
        if r.name not in signatures:
            raise ValueError(f"{module}.{r.name}: no such block routine in {pxd}")
        routines.append(wrapper(registry, r, signatures[r.name], structs))
    used_structs = sorted({t for r in routines for t, _ in r.scratch} & set(structs))
    lines = [line for r in routines for line in r.loads + r.stores]
    packed = any("_columns(" in line or "_field(" in line for line in lines)
    integers = any("_integer(" in line for line in lines)
    with open(template, encoding="utf-8") as f:
        return Template(f.read(), name=os.path.basename(template)).substitute(
            module=module, source=source, routines=routines, structs=used_structs, packed=packed,
            integers=integers)


def render_docs(registry, package):
    """The reference table of the block routines, as reStructuredText."""
    wrapped = {(r.module, r.name): r.name + "_kernel" for r in registry.ROUTINES}
    wrapped.update({(m, n): w for m, n, w in registry.HAND_WRITTEN})
    lines = [
        ".. Generated by tools/generate_block_wrappers.py --docs from the .pxd files and",
        "   tools/block_routines.py: do not edit.",
        "",
        "Block routines",
        "==============",
        "",
        "The block routines that Cython code cimports from vecampfit (see",
        ":doc:`../design`): each works on ``VECTOR_LENGTH`` events at once, on real",
        "vectors ``floating x[VECTOR_LENGTH]``, integer vectors (``int32_t``,",
        "``int64_t``, ``uint32_t``) and complex vectors ``complex_vector`` (``re`` and",
        "``im`` arrays of ``VECTOR_LENGTH``).  Cimport them as",
        "``from vecampfit.<module> cimport <routine>``.  The last column names the",
        "private function of ``vecampfit._<module>`` (of ``vecampfit.<module>._kernels``",
        "for the package ``vecampfit.real``) that applies the routine over whole numpy",
        "arrays (behind the public functions of ``vecampfit.<module>``); ``-`` where",
        "only Cython code uses the routine.",
        "",
    ]
    for module, path in pxd_files(package):
        signatures = parse_pxd(path)
        if not signatures:
            continue
        title = f"vecampfit.{module}"
        lines += [title, "-" * len(title), "", ".. list-table::", "   :header-rows: 1",
                  "   :widths: 25 55 20", "",
                  "   * - Routine", "     - Signature", "     - Array wrapper"]
        for sig in signatures.values():
            w = wrapped.get((module, sig.name))
            lines += [f"   * - ``{sig.name}``", f"     - ``{signature_text(sig)}``",
                      f"     - ``{w}``" if w else "     - \\-"]
        lines.append("")
    return "\n".join(lines)


def _write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--registry", default=os.path.join(HERE, "block_routines.py"),
                        help="the registry (default: block_routines.py beside this script)")
    parser.add_argument("--module", help="write the wrappers of this module")
    parser.add_argument("--pxd", help="the module's .pxd (with --module)")
    parser.add_argument("--template", default=os.path.join(HERE, "block_wrappers.pxi.tp"),
                        help="the Tempita template (with --module)")
    parser.add_argument("--output", help="output .pxi (with --module)")
    parser.add_argument("--docs", help="write the reference table to this .rst file")
    parser.add_argument("--package", default=os.path.join(HERE, os.pardir, "vecampfit"),
                        help="the folder of the .pxd files (with --docs)")
    args = parser.parse_args(argv)
    registry = load_registry(args.registry)
    if args.module:
        if not (args.pxd and args.output):
            parser.error("--module needs --pxd and --output")
        _write(args.output, render_module(registry, args.module, args.pxd, args.template))
    if args.docs:
        _write(args.docs, render_docs(registry, args.package))
    if not (args.module or args.docs):
        parser.error("nothing to do: give --module or --docs")


if __name__ == "__main__":
    main()
