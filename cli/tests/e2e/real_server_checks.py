"""The checks every real server's large call must pass, as a base class:
each test module subclasses it and gives two module-scoped fixtures, `scenario` (a
real_servers.Scenario) and `run` (its Run: one proxied session, made once per module).

- the large call is offloaded (a descriptor with ten recipes and a file);
- the response stays within the token budget;
- the descriptor's summary.count is the number of records written;
- the guidance follows `--guidance` (shell or native);
- every recipe command runs under Debian's jq 1.6 (the commands are in the descriptor
  whatever the guidance), and every recipe runs in lro_extract.
The shape of the file and the answers of lro_extract are each server's own tests."""

import json

from conftest import answer_values, descriptor_of
from offload_checks import OffloadFile, check_response_budget, run_recipes_under_system_jq


def answer(run, question: str) -> list:
    """The results of one lro_extract question asked during the run."""
    result = run.answers.get(question)
    assert result is not None, f"{question!r} was not asked: the large call was not offloaded"
    assert not result.isError, f"lro_extract {question}: {result.content[0].text}"
    return answer_values(result)


def offload_file(run) -> OffloadFile:
    return OffloadFile.read(descriptor_of(run.result)["file_path"])


def search_hits(run, question: str) -> list:
    """The records a `search` question matched, parsed back from their lines."""
    return [json.loads(hit["text"]) for hit in answer(run, question)]


class OffloadChecks:
    """Mixed into each real server's `Test...` class."""

    def test_large_call_is_offloaded(self, run):
        descriptor = descriptor_of(run.result)
        assert descriptor["summary"]["count"] > 0

    def test_response_is_within_the_budget(self, run):
        descriptor_of(run.result)
        check_response_budget(run.result)

    def test_summary_count_is_the_number_of_records_written(self, run):
        descriptor = descriptor_of(run.result)
        file = OffloadFile.read(descriptor["file_path"])
        assert descriptor["summary"]["count"] == len(file.records) == file.header["count"]

    def test_guidance_follows_the_proxy_option(self, run, scenario):
        guidance = descriptor_of(run.result)["guidance"]
        if scenario.guidance == "native":
            # The tool as the proxy lists it, after the server's name.
            descriptor = descriptor_of(run.result)
            assert descriptor["extract_tool"].startswith("lro_extract_"), descriptor["extract_tool"]
            assert f'{descriptor["extract_tool"]}(file_path=' in guidance, guidance
        else:
            assert "jq" in guidance and "lro_extract" not in guidance, guidance

    def test_every_recipe_runs_under_the_system_jq(self, run):
        run_recipes_under_system_jq(descriptor_of(run.result))

    def test_every_recipe_runs_in_lro_extract(self, run):
        descriptor_of(run.result)
        for number in range(1, 11):
            answer(run, f"recipe {number}")
