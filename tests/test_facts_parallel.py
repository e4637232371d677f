"""The two-process scan (CLI) must give exactly the facts of the plain scan."""

import chatgen
from inspector.core import facts as facts_module
from inspector.core.facts import ToolFacts
from inspector.core.model import Message
from inspector.core.strategies.shorten_tools import ShortenToolsPlan


def test_parallel_scan_equals_sequential(monkeypatch):
    monkeypatch.setattr(facts_module, "_PARALLEL_MIN", 10)
    raw = chatgen.chat(77, messages=300, scale=2000, traps=True)
    raw[5] = {"role": "function_call_output", "content": "{broken"}  # a failure in the older half
    raw[250] = {"role": "function_call_output", "content": "[1, 2]"}  # and one in the newer half
    messages = [Message(m) for m in raw]
    plain = ToolFacts(messages)
    forked = ToolFacts(messages, parallel=True)
    assert forked.order == plain.order and forked.kinds == plain.kinds and forked.raw == plain.raw
    assert forked.failures == plain.failures and forked.first_failure == plain.first_failure
    assert [forked.parsed[p] for p in range(len(plain.order)) if plain.kinds[p] != 2] == \
           [plain.parsed[p] for p in range(len(plain.order)) if plain.kinds[p] != 2]
    values = (0, 3, 20, 20, 3000)
    assert ShortenToolsPlan(forked, values).decisions() == ShortenToolsPlan(plain, values).decisions()
