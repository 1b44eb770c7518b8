"""smolagents with mcpadapt: its MCPClient (stdio, every server of the agent in one client) and
OpenAIServerModel on the scripted model, for both agents: ToolCallingAgent (tool calls) and
CodeAgent (the MCP tools as Python functions in the code the model writes).

smolagents reports each call back to the model as a user message (an observation), and ends a
run with its own `final_answer` tool (ToolCallingAgent) or function (CodeAgent): the scripts
are the shared ones with that ending, and CodeAgent's are the same steps written as code."""

import re

from mcp import StdioServerParameters
from smolagents import CodeAgent, MCPClient, OpenAIServerModel, ToolCallingAgent

import harness
from checks import FrameworkSuite


class SmolagentsSuite(FrameworkSuite):
    agent_class = ToolCallingAgent

    def run(self, servers, base_url):
        parameters = [StdioServerParameters(command=s.command, args=s.args, env=s.full_env()) for s in servers]
        model = OpenAIServerModel(model_id=harness.MODEL_NAME, api_base=base_url, api_key=harness.API_KEY)
        # structured_output given: left out, smolagents warns that its default will change.
        with MCPClient(parameters, structured_output=False) as tools:
            self.agent = self.agent_class(tools=tools, model=model, max_steps=8, verbosity_level=0)
            return self.agent.run(harness.PROMPT)

    def framework_errors(self):
        # smolagents records a step's error (bad arguments, a failing tool) in its memory and
        # tells the model, instead of raising or logging it.
        return [str(step.error) for step in self.agent.memory.steps if getattr(step, "error", None)]


def final_answer_call(step: dict) -> dict:
    """An `answer` step as ToolCallingAgent's ending: a call of its final_answer tool."""
    if "answer" in step:
        return {"call": [{"tool": "final_answer", "args": {"answer": step["answer"]}}]}
    return step


class TestSmolagentsToolCalling(SmolagentsSuite):
    framework = "smolagents 1.26.0 ToolCallingAgent"

    def offload_script(self):
        return {"steps": [final_answer_call(s) for s in harness.offload_script()["steps"]]}

    def direct_script(self):
        return {"steps": [final_answer_call(s) for s in harness.direct_script()["steps"]]}

    def two_servers_script(self, memory_extract, everything_extract):
        script = harness.two_servers_script(memory_extract, everything_extract)
        return {"steps": [final_answer_call(s) for s in script["steps"]]}

    def tool_text(self, received, step):
        # "Observation:\n<the tool's text>" (smolagents' ToolCallingAgent observation).
        observation = received.result_of(step)
        return re.sub(r"^Observation:\n", "", observation)


def call_code(tool: str, args: dict) -> str:
    """A tool call as CodeAgent code: the tool as the function the scripted model finds in the
    system prompt (`{tool:PATTERN}`), keyword arguments as Python literals."""
    return "{tool:%s}(%s)" % (tool, ", ".join(f"{k}={v!r}" for k, v in args.items()))


class TestSmolagentsCodeAgent(SmolagentsSuite):
    framework = "smolagents 1.26.0 CodeAgent"
    agent_class = CodeAgent

    @staticmethod
    def as_code(script: dict) -> dict:
        """The shared script as code: each call's result printed (the model reads the printed
        logs) and kept in `result`; an answer made of the last result is `final_answer(result)`,
        so the run's answer is exactly what the tool returned."""
        steps = []
        for step in script["steps"]:
            if "call" in step:
                (call,) = step["call"]
                steps.append({"code": f"result = {call_code(call['tool'], call['args'])}\nprint(result)"})
            elif "{last}" in step["answer"]:
                steps.append({"code": "final_answer(result)"})
            else:
                steps.append({"code": f"final_answer({step['answer']!r})"})
        return {"steps": steps}

    def offload_script(self):
        return self.as_code(harness.offload_script())

    def direct_script(self):
        return self.as_code(harness.direct_script())

    def two_servers_script(self, memory_extract, everything_extract):
        return self.as_code(harness.two_servers_script(memory_extract, everything_extract))

    def tool_text(self, received, step):
        # "Execution logs:\n<printed>\nLast output from code snippet:\nNone" per step.
        observation = received.result_of(step)
        match = re.search(r"Execution logs:\n(.*?)\nLast output from code snippet:", observation, re.S)
        assert match, f"not a CodeAgent observation: {observation[:300]!r}"
        printed = match.group(1)
        return printed

    def check_offload_scenario(self, run):
        super().check_offload_scenario(run)
        # final_answer(result) of the count: the run's answer is what the tool returned, the
        # number alone (it was the jq program when the count carried one).
        assert run.answer.strip() == str(harness.data.expected()["count"]), repr(run.answer)
