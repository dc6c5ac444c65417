"""Every rule scenario under tests/scenarios/ runs through the engine's scenario runner."""

from pathlib import Path

import pytest

from games.engine.scenario import run_file

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
FILES = sorted(SCENARIOS.glob("*/*.json"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario_holds(path):
    outcome = run_file(str(path))
    assert outcome.failures == []


@pytest.mark.parametrize("ruleset", ["base", "saboteur2"])
def test_each_rule_set_has_its_scenarios(ruleset):
    assert len(list((SCENARIOS / ruleset).glob("*.json"))) >= 30
