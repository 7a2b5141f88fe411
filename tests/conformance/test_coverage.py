"""How much of what tf8 shares with JAX the corpus records (issue #28's target: ≥ 95 % of the
shared public functions, and ≥ 20 000 cases). The shared names were listed with JAX
(coverage.py); a program `numpy.take[fill]` or `nn.initializers.normal(...)` covers the name
before the bracket, and a family's COVERS maps its other programs to the names they call."""

from __future__ import annotations

import importlib

from .corpus import load
from .coverage import NOT_FUNCTIONS, covered
from .families import FAMILIES
from .replay import CORPUS


def _recorded() -> tuple[set[str], int]:
    names: set[str] = set()
    cases = 0
    for family in FAMILIES:
        module = importlib.import_module(f"{__package__}.families.{family}")
        covers = getattr(module, "COVERS", {})
        if not (CORPUS / f"{family}.npz").exists():
            continue  # the test below names it
        index = load(CORPUS / f"{family}.npz").index
        cases += len(index)
        for entry in index:
            name = entry["name"]
            found = covers.get(name, name.split("[")[0].split("(")[0])
            names.update([found] if isinstance(found, str) else found)
    return names, cases


def test_the_corpus_records_most_shared_functions_and_enough_cases():
    names, cases = _recorded()
    have, lack = covered(names)
    share = len(have) / (len(have) + len(lack))
    print(
        f"conformance coverage: {len(have)} of {len(have) + len(lack)} shared functions "
        f"({share:.1%}; {len(NOT_FUNCTIONS)} shared names are not functions of arrays), "
        f"{cases} cases; not recorded: {' '.join(sorted(lack))}"
    )
    assert share >= 0.95, f"only {share:.1%} of shared functions recorded; lacking {sorted(lack)}"
    assert cases >= 20_000


def test_every_family_has_its_corpus_file():
    missing = [f for f in FAMILIES if not (CORPUS / f"{f}.npz").exists()]
    assert not missing, f"families without a recorded corpus (run record.py): {missing}"


def test_each_corpus_holds_what_its_family_names_now():
    """A family edited without re-recording (record.py) would replay stale cases."""
    for family in FAMILIES:
        module = importlib.import_module(f"{__package__}.families.{family}")
        index = load(CORPUS / f"{family}.npz").index
        names = [case.name for case in module.cases()]
        assert names == [e["name"] for e in index], f"{family}: re-record it (record.py)"
