"""The forgetting audit: findings that point at likely damage done by what the model was not sent.

Each finding names the messages involved (explain's `#` and the prompt index), so the
CLI can list them and the app can jump to them. The patterns:

* repeated_call: the agent made a call it had already made (same tool, same
  arguments, equal as parsed JSON) while no earlier result of it was sent in full in the
  prompt it saw at that moment (the chat up to the repeat, re-planned), a sign it forgot:
  ``analysis.refetch``'s rule, the one ``corpus`` counts as refetches;
* call_without_output / output_without_call: one half of a call/output pair is sent
  and the other dropped, so the model sees a question without its answer or the reverse;
* cut_error: a truncated output whose cut removed the end of an error message or a
  stack trace: one whose start the model still sees, or the output's last error with
  none left in the kept tail (the line that says what went wrong is what it needed);
* consumed_turns: a `clear` or `previous_response_id` removed earlier turns before the
  strategies ran;
* loader_*: hazards the loader noticed (Chat.findings), e.g. a block that swallows lines;
* unexplained_usage / over_window: a call whose recorded prompt size (its meta record's ``pt``) the rebuilt
  prompt plus the chat's estimated overhead does not explain, and a call whose prompt is larger than the
  context window: made in the calls layer (``calls.usage.usage_findings``) and passed in as ``extra``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from inspector.core.analysis.refetch import refetched, repeats, tool_pairs
from inspector.core.analysis.visibility import kept_ranges
from inspector.core.inspection import Inspection
from inspector.core.numbering import RowNumbers
from inspector.core.policies import decision as d
from inspector.core.ruby.json import RubyJSONError, parse
from inspector.core.scout.prepare import Prompt, prepare_prompt
from inspector.core.scout.strategies import parse_spec
from inspector.core.scout.strategies.shorten_tools_epoch import EpochSettings
from inspector.core.scout.strategies.shorten_tools_epoch_increment import IncrementSettings
from inspector.core.scout.tool_facts import OUTPUT, tool_identity

PREFIX_REPLANS = 400  # repeated calls checked against the prompt of their time; later ones use the final prompt
REMOVING_STEPS = ("clear", "previous_response_id")

# The ends of error reports: a Python traceback through its exception line, runs of stack
# frames (Python, Java/JS, Ruby), and single lines naming an error.
_TRACEBACK = re.compile(r"Traceback \(most recent call last\):\n(?:[ \t].*\n)*[^\s\n].*")
_FRAMES = re.compile(r"(?:^[ \t]+(?:File \".*\", line \d+|at [\w$.<>/]+.*|from \S+:\d+.*)$\n?)+", re.M)
_ERROR_LINE = re.compile(r"^.*\b(?:[A-Z]\w*(?:Error|Exception)|ERROR|FATAL|FAILED|panic)\b.*$", re.M)


@dataclass(frozen=True, slots=True)
class AuditFinding:
    kind: str
    message: str
    rows: tuple[int, ...]  # explain `#` of each message involved
    messages: tuple[int | None, ...]  # prompt message index of each (None: a consumed message)
    line: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "message": self.message,
            "rows": list(self.rows),
            "messages": list(self.messages),
            "line": self.line,
        }


class _Tools:
    """Tool calls and outputs with their names, ids, arguments and pairing (``refetch.tool_pairs``)."""

    def __init__(self, inspection: Inspection):
        self.pairs = pairs = tool_pairs(inspection.facts)
        self.calls, self.outputs, self.identity = list(pairs.calls), list(pairs.outputs), pairs.identity
        self.output_of, self.call_of = pairs.output_of, pairs.call_of


def _batch_start(messages: Any, index: int) -> int:
    """The first call of the model turn that produced ``index`` (parallel calls come together)."""
    while index > 0 and messages[index - 1].fields.get("role") == "function_call":
        index -= 1
    return index


SentBefore = Callable[[int, int], "d.Tier | None"]
"""(message, index) -> the tier of message ``index`` in the prompt of the model call whose response holds
``message`` (None: nothing was sent, scout-ai raised), planned exactly as that call was (calls layer:
``timeline.tiers_before_calls``)."""


UNEXPLAINED_USAGE = "unexplained_usage"
OVER_WINDOW = "over_window"


def audit(
    inspection: Inspection,
    prompt: Prompt | None = None,
    sent_before: SentBefore | None = None,
    extra: Sequence[AuditFinding] = (),
) -> list[AuditFinding]:
    """``sent_before``: the prompts at the chat's calls; without it a repeated call is judged in the whole
    chat's messages before it under the whole chat's thresholds (not exact where config lines come later).
    ``extra``: findings made above this layer (the calls' recorded usage), listed with the others."""
    prompt = prompt or inspection.prompt()
    numbers = RowNumbers.of(inspection.chat)
    tools = _Tools(inspection)
    findings: list[AuditFinding] = []
    findings += _repeated_calls(inspection, prompt, tools, numbers, sent_before)
    findings += _split_pairs(inspection, prompt, tools, numbers)
    findings += _cut_errors(inspection, prompt, numbers)
    findings += _consumed(inspection, numbers)
    findings += _loader(inspection, numbers)
    findings += extra
    findings.sort(key=lambda f: (f.rows[0] if f.rows else -1, f.kind))
    return findings


def _name(tools: _Tools, index: int) -> str:
    name = tools.identity.get(index, (None, None))[0]
    return str(name) if name is not None else "?"


def _repeated_calls(
    inspection: Inspection, prompt: Prompt, tools: _Tools, numbers: RowNumbers, sent_before: SentBefore | None
) -> list[AuditFinding]:
    """The refetch rule (``analysis.refetch``): a repeated call none of whose earlier outputs (written before
    it) is sent in full in the prompt of the call holding it. With ``sent_before`` every call's prompt is the
    one it was sent; without, the chat's messages before the repeat are re-planned (the first
    ``PREFIX_REPLANS`` responses; later ones are judged in the final prompt)."""
    row = numbers.row_of_message  # texts number messages like the # column
    messages = inspection.chat.messages
    spec = parse_spec(inspection.strategy_spec, inspection.version.default, validate=False)
    values = inspection.thresholds.as_tuple()
    prefix_prompts: dict[int, Prompt] = {}
    out = []
    for repeat in repeats(tools.pairs):
        call = repeat.call
        when = "in the prompt it was sent before the repeat"
        tier_of: Callable[[int], d.Tier | None]
        if sent_before is not None:
            tier_of = partial(sent_before, call)  # what the model was sent when it decided to repeat itself
        else:
            start = _batch_start(messages, call)
            then = prefix_prompts.get(start)
            if then is None and len(prefix_prompts) < PREFIX_REPLANS:
                then = prepare_prompt(
                    messages[:start],
                    spec,
                    values,
                    epoch=EpochSettings.of(inspection.thresholds),
                    version=inspection.version_for(spec),
                    increment_settings=IncrementSettings.of(inspection.thresholds),
                )
                prefix_prompts[start] = then
            if then is None:
                when = "in the final prompt"
            plan = then or prompt
            tier_of = partial(_tier_or_none, plan)
        earlier, answer = repeat.newest
        tier = tier_of(answer)
        if tier is None:
            continue  # scout-ai raises on that prompt: nothing is sent, no call is made (an error, not a refetch)
        if not refetched(repeat, lambda index, tier_of=tier_of: tier_of(index) == d.FULL):  # type: ignore[misc]
            continue
        what = f"was {tier}"
        involved = (earlier, answer, call)
        out.append(
            AuditFinding(
                "repeated_call",
                f"message #{row(call)} repeats the {_name(tools, call)} call of message #{row(earlier)} with the same "
                f"arguments; the earlier result (message #{row(answer)}) {what} {when}",
                tuple(numbers.row_of_message(i) for i in involved),
                involved,
                inspection.chat.line_of(call),
            )
        )
    return out


def _tier_or_none(prompt: Prompt, index: int) -> d.Tier | None:
    return None if prompt.error is not None else prompt.tier_of(index)


def _sent(prompt: Prompt, index: int) -> bool:
    return prompt.tier_of(index) in (d.FULL, d.TRUNCATED)


def _split_pairs(inspection: Inspection, prompt: Prompt, tools: _Tools, numbers: RowNumbers) -> list[AuditFinding]:
    row = numbers.row_of_message  # texts number messages like the # column
    if prompt.error is not None:
        return []  # nothing is sent at all; the error itself is the finding
    out = []
    for call, answer in sorted(tools.output_of.items()):
        call_sent, answer_sent = _sent(prompt, call), _sent(prompt, answer)
        if call_sent == answer_sent:
            continue
        if call_sent:
            kind = "call_without_output"
            text = (
                f"the {_name(tools, call)} call (message #{row(call)}) is sent but its output (message #{row(answer)}) "
                "is dropped: the model sees the question without the answer"
            )
        else:
            kind = "output_without_call"
            text = (
                f"the {_name(tools, call)} output (message #{row(answer)}) is sent but its call (message #{row(call)}) "
                "is dropped: the model sees an answer without the question"
            )
        involved = (call, answer)
        out.append(
            AuditFinding(
                kind, text, tuple(numbers.row_of_message(i) for i in involved), involved, inspection.chat.line_of(call)
            )
        )
    return out


def error_ends(text: str) -> list[tuple[int, int]]:
    """(start, end) of each error report in ``text``; its end is what a cut must not remove."""
    spans = [m.span() for m in _TRACEBACK.finditer(text)]
    spans += [m.span() for m in _FRAMES.finditer(text) if m.group().strip()]
    spans += [m.span() for m in _ERROR_LINE.finditer(text)]
    return sorted(set(spans))


def _cut_errors(inspection: Inspection, prompt: Prompt, numbers: RowNumbers) -> list[AuditFinding]:
    if prompt.error is not None:
        return []
    facts = inspection.facts
    out = []
    for index in sorted(facts.order[p] for p in range(len(facts.order)) if facts.kinds[p] == OUTPUT):
        if prompt.tier_of(index) != d.TRUNCATED:
            continue
        p = facts.position[index]
        original = facts.parsed[p].get("content")
        try:
            shown = parse(prompt.visible_content(index)).get("content")
        except (RubyJSONError, AttributeError, TypeError):
            continue
        if not isinstance(original, str) or not isinstance(shown, str):
            continue
        kept = kept_ranges(original, shown)
        if kept is None:
            continue
        head, tail = kept
        reports = error_ends(original)
        # an error whose start is shown but whose end is cut, or a last error lost with no other in the tail:
        # the model sees that something failed but not what (errors wholly inside the cut are just hidden text)
        lost = [(a, b) for a, b in reports if a < head < b]
        if not lost and reports and head < reports[-1][1] <= tail and not any(a >= tail for a, _ in reports):
            lost = [reports[-1]]
        if not lost:
            continue
        a, b = lost[0]
        first = original[a:b].strip().splitlines()[-1][:120] if original[a:b].strip() else ""
        name = tool_identity(facts.parsed[p])[0]
        out.append(
            AuditFinding(
                "cut_error",
                f"the {name} output (message #{numbers.row_of_message(index)}) is truncated and the cut (characters {head:,}-{tail:,} of "
                f"{len(original):,}) removed the end of {len(lost)} error report(s); first: {first!r}",
                (numbers.row_of_message(index),),
                (index,),
                inspection.chat.line_of(index),
            )
        )
    return out


def _consumed(inspection: Inspection, numbers: RowNumbers) -> list[AuditFinding]:
    consumed = inspection.chat.consumed
    groups: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for rank, k in enumerate(numbers.consumed_order):
        item = consumed[k]
        # the directive line itself is not an earlier turn (a plain previous_response_id is just removed)
        if item.step in REMOVING_STEPS and item.message.fields.get("role") not in REMOVING_STEPS:
            groups.setdefault((item.step, item.before), []).append((numbers.row_of_consumed(rank), k))
    out = []
    for (step, _before), items in groups.items():
        rows = tuple(row for row, _ in items)
        lines = [line for _, k in items if (line := consumed[k].message.line)]
        span = f" (lines {min(lines)}-{max(lines)})" if lines else ""
        what = "a clear" if step == "clear" else "previous_response_id"
        out.append(
            AuditFinding(
                "consumed_turns",
                f"{what} removed {len(items)} earlier message(s){span} before the strategies ran; the model is not "
                f"sent them whatever the thresholds ({consumed[items[0][1]].reason})",
                rows,
                tuple(None for _ in items),
                min(lines) if lines else None,
            )
        )
    return out


def _loader(inspection: Inspection, numbers: RowNumbers) -> list[AuditFinding]:
    out = []
    for finding in inspection.chat.findings:
        indices = tuple(i for i in finding.indices if 0 <= i < len(inspection.chat.messages))
        out.append(
            AuditFinding(
                f"loader_{finding.kind}",
                finding.message,
                tuple(numbers.row_of_message(i) for i in indices),
                indices,
                finding.line,
            )
        )
    return out
