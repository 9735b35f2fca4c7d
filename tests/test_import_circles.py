"""No module of ours imports itself back through others: docs/architecture.md's
rooms stack file by file, without a circle. An import made only for the type
checker counts too (it ties the two files as much as any); the imports of a
package's face (its ``__init__.py``, which only hands its modules' names on)
are left out."""

from __future__ import annotations

import grimp

PACKAGES = ("engine", "hardware", "controller", "bench")


def circles(graph: grimp.ImportGraph) -> list[tuple[str, ...]]:
    """Each import that a chain of imports leads back from, with that chain."""
    for face in [m for m in graph.modules if graph.find_children(m)]:
        for named in graph.find_modules_directly_imported_by(face):
            graph.remove_import(importer=face, imported=named)
    found = []
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(imported=module, importer=imported)
            if back is not None:
                found.append((module, *back))
    return found


def test_no_module_imports_itself_back() -> None:
    assert circles(grimp.build_graph(*PACKAGES, cache_dir=None)) == []
