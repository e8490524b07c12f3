"""The evaluation's prompts are data files (app/eval/prompts/, in the package), read into one kind of spec."""

import pytest
from pydantic import ValidationError

from app.eval import spec as eval_spec
from app.eval import tools_file

# How many prompts each part holds, as docs/embedded says.
SIZES = {
    "tuned": 34,
    "held-out": 43,
    "chat held-out": 38,
    "remarks held-out": 14,
    "remarks held-out 2": 24,
    "remarks held-out 3": 30,
    "people held-out": 72,
    "people held-out 2": 72,
    "people held-out 3": 72,
    "blind lab job": 40,
    "blind manager job": 40,
    "blind overseas job": 40,
    "blind newcomer job": 40,
}


@pytest.mark.parametrize("name", list(eval_spec.PARTS))
def test_each_part_reads_into_specs_of_that_part(name: str) -> None:
    specs = eval_spec.part(name)
    assert len(specs) == SIZES[name]
    assert {spec.part for spec in specs} == {name}
    assert all(spec.text and spec.kind and spec.seed for spec in specs)
    assert len({spec.text for spec in specs}) == len(specs), "a prompt is written twice"


def test_a_shared_phrase_list_is_read_where_it_is_reused() -> None:
    # heldout.yaml names its phrase lists once (&absent) and reuses them (*absent)
    queries = [spec for spec in eval_spec.part("held-out") if spec.kind == "query"]
    assert "未找到" in queries[0].says_one_of


def test_a_tuned_prompt_reads_as_one_tool_and_the_row_it_adds() -> None:
    first = eval_spec.part("tuned")[0]
    assert first.tools == ("add_device_model",)
    assert first.rows == (("CPH2223", None),)
    assert first.arguments == {"model": "CPH2223"}
    assert first.approves


def test_a_key_the_scorer_does_not_know_is_an_error(tmp_path, monkeypatch) -> None:
    (tmp_path / "heldout.yaml").write_text(
        'seed: {A1: "x"}\nprompts:\n  - {kind: "add", text: "add B2", tools: [], sayz: ["B2"]}\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(eval_spec, "PROMPTS", tmp_path)
    with pytest.raises(ValidationError, match="sayz"):
        eval_spec.part("held-out")


def test_every_spec_the_scorer_reads_is_in_one_part() -> None:
    assert len(eval_spec.all_specs()) == sum(SIZES.values())


def test_the_blind_parts_are_held_out_and_a_delete_removes_the_row_it_names() -> None:
    blind = [name for name in eval_spec.FILES if name.startswith("blind ")]
    assert len(blind) == 8 and all(eval_spec.held_out(name) and eval_spec.blind(name) for name in blind)
    assert not eval_spec.held_out("tuned") and eval_spec.held_out("people held-out 3")
    seed = {"V2309A": "vivo X100", "PHZ110": "OPPO Find X7"}
    delete = eval_spec.Spec(
        part="blind lab job",
        kind="delete",
        text="x",
        tools=("delete_device_model",),
        seed=seed,
        says=("V2309A",),
    )
    told = eval_spec.Spec(part="held-out", kind="delete", text="x", tools=(), seed=seed, says=("V2309A",))
    assert (delete.removes, told.removes) == (
        ("V2309A",),
        (),
    )  # a part whose delete runs no tool removes none


@pytest.mark.parametrize("name", list(eval_spec.TOOL_PARTS))
def test_each_blind_tools_file_reads_into_prompts_beside_three_added_tools(name: str) -> None:
    prompts = tools_file.read(eval_spec.PROMPTS / eval_spec.TOOL_PARTS[name], name)
    assert len(prompts) == 40 and {p.part for p in prompts} == {name}
    assert len(prompts[0].added) == 3 and len({p.text for p in prompts}) == len(prompts)
    assert {p.kind for p in prompts} <= {"call", "ask", "no_write", "cannot", "chat"}
