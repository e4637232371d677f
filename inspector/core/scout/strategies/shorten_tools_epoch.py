"""``Chat.shorten_tools_epoch`` as scout-ai S (733fc62) runs it, with an outcome per message.

Works on message dicts (``{"role": ..., "content": ...}``) and reports, for each input
position, the tier and the rule that decided it, so the chain in prepare.py can give
specific reasons instead of guessing from the output. Ruby's evaluation order is kept
where it decides *which* message raises: the role count, then the forward pass that
finds repeated calls, then the newest-first walk.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.core.policies import decision as d
from inspector.core.ruby import json as rubyjson
from inspector.core.ruby.inspect import inspect, to_s
from inspector.core.scout.settings import DEFAULTS as SETTING_DEFAULTS
from inspector.core.scout.settings import EPOCH_KEYS
from inspector.core.scout.shorten import SIZED, Shortener
from inspector.core.scout.tool_facts import ruby_class

if TYPE_CHECKING:
    from inspector.core.scout.settings import Thresholds

NAME = "shorten_tools_epoch"
# The four settings it reads, with their defaults: settings.DEFAULTS is the one source (scout-ai 50/20/80/20).
DEFAULTS = {key: SETTING_DEFAULTS[key] for key in EPOCH_KEYS}
OUTPUT_SIZE = 400  # DEFAULT_SHORT_STRING_LENGTH * 2
ARGUMENT_SIZE = 200

# The heredoc in S mixes a tab-indented first line with space-indented ones; `<<~` cannot
# remove part of a tab, so the first line keeps "\t  ". Counts are messages (calls and outputs).
COMPACTION_TEXT = (
    "\t  === Context Management ===\n\n"
    "To fit within the model context window, this conversation has been compacted: some tool calls arguments "
    "and tool call outputs have been truncated, and some have been removed entirely.\n\n"
    "Compacted: {truncated}\nRemoved: {dropped}\n\n"
    "Earlier tool results may no longer be present in the visible conversation history. If information appears "
    "to be missing, it may have been removed during context compaction rather than never existing. The absence of "
    "an earlier tool result in the current conversation does not necessarily mean that the tool has not already "
    "been executed.\n\n"
    "Repeated tool calls with the same arguments will be flagged and protected from removal or truncation."
)

_TOOL_ROLES = ("function_call", "function_call_output")


@dataclass(frozen=True, slots=True)
class EpochSettings:
    threshold: int = DEFAULTS["epoch_tool_call_threshold"]
    full: int = DEFAULTS["epoch_full_tool_calls"]
    compacted: int = DEFAULTS["epoch_compacted_tool_calls"]
    size: int = DEFAULTS["epoch_size"]

    @classmethod
    def of(cls, settings: Thresholds) -> EpochSettings:
        """The four values among every resolved setting."""
        return cls(*(int(settings.setting(key)) for key in DEFAULTS))

    @classmethod
    def resolve(cls, env: dict[str, str] | None = None, config_files: list[Path] | None = None) -> EpochSettings:
        """The four values as scout-ai reads them: config files, environment, default, then to_i."""
        from inspector.core.scout.settings import resolve_settings

        values, _ = resolve_settings(DEFAULTS, env=env, config_files=config_files)
        return cls(*(int(values[key].value) for key in DEFAULTS))


@dataclass(frozen=True, slots=True)
class Outcome:
    tier: d.Tier
    reason: str
    counted: int | None = None  # parseable outputs counted newest first (Ruby's tool_ids.length)


@dataclass(frozen=True, slots=True)
class EpochError:
    position: int
    exception: str
    why: str
    name: object = None
    id: object = None


@dataclass(slots=True)
class EpochResult:
    messages: list[dict[str, Any]]
    origins: list[int]  # input position of each returned message; -1 for the compaction message
    outcomes: list[Outcome]  # one per input position
    error: EpochError | None = None
    truncated: int = 0
    dropped: int = 0


class Raised(Exception):
    """What scout-ai would raise shortening one message (the epoch walk and windows.WindowFacts catch it)."""

    def __init__(self, position: int, exception: str, why: str, data: Any = None):
        super().__init__(why)
        name = data.get("name") if type(data) is dict else None
        ident = data.get("id") if type(data) is dict else None
        self.error = EpochError(position, exception, why, name, ident)


UNPARSED = object()  # a tool message whose JSON did not parse (`JSON.parse(json) rescue nil`)


def _parse(content: Any) -> Any:
    """``JSON.parse json rescue nil``: anything that fails, or parses to nil/false, is kept as is."""
    if type(content) is not str:
        return UNPARSED  # TypeError (not a String), rescued
    try:
        value = rubyjson.parse(content)
    except rubyjson.RubyJSONError:
        return UNPARSED
    if value is None or value is False or rubyjson.too_deep(content, value):
        return UNPARSED
    return value


def _index(value: Any, key: str, position: int) -> Any:
    """Ruby's ``value[key]`` on whatever JSON.parse returned."""
    kind = type(value)
    if kind is dict:
        return value.get(key)
    if kind is str:
        return key if key in value else None  # String#[](str): the substring or nil
    if kind is int or kind is list:
        raise Raised(position, "TypeError", "no implicit conversion of String into Integer")
    raise Raised(position, "NoMethodError", f"undefined method `[]' for {ruby_class(value)}")


def hash_key(value: Any) -> Any:
    """A Python key equal where Ruby's Hash keys are ``eql?`` (1 and 1.0 differ; 0.0 and -0.0 do not)."""
    kind = type(value)
    if kind is dict:
        return ("h", frozenset((k, hash_key(v)) for k, v in value.items()))
    if kind is list:
        return ("a", tuple(hash_key(v) for v in value))
    if kind is float:
        return ("f", value + 0.0)
    return (kind.__name__, value)


def _sort_value(value: Any) -> Any:
    # transform_keys(&:to_s).sort: Ruby compares strings by bytes
    if type(value) is dict:
        ordered = sorted(value.items(), key=lambda kv: kv[0].encode("utf-8", "surrogatepass"))
        return {k: _sort_value(v) for k, v in ordered}
    if type(value) is list:
        return [_sort_value(v) for v in value]
    return value


def arguments_or_empty(arguments: Any) -> Any:
    """``arguments || {}``: only nil and false are falsy in Ruby, so 0, 0.0, "" and [] stay as they are.

    (Not ``arguments in (None, False)``: Python's ``in`` compares with ``==``, and ``0 == False``.)
    """
    return {} if arguments is None or arguments is False else arguments


def dedup_key(name: Any, arguments: Any) -> str:
    """``name + "\\0" + JSON.generate(sorted arguments || {})``; the id is left out on purpose in S (and 2.x)."""
    try:
        return f"{to_s(name)}\0{rubyjson.dumps(_sort_value(arguments_or_empty(arguments)))}"
    except rubyjson.RubyJSONError:  # the Ruby method rescues (Infinity/NaN) and uses inspect
        return f"{to_s(name)}\0{inspect(arguments)}"


def protected_positions(items: list[dict[str, Any]], total: int) -> set[int]:
    """Reverse positions (1 = newest parseable output) of the newest instance of each repeated call."""
    pending: dict[str, Any] = {}
    positions: dict[str, list[int]] = {}
    forward = 0
    for position, message in enumerate(items):
        role = message.get("role")
        if role not in _TOOL_ROLES:
            continue
        content = message.get("content")
        if content is None or content is False:
            continue
        data = _parse(content)
        if data is UNPARSED:
            continue
        if role == "function_call":
            name = _index(data, "name", position)
            arguments = _index(data, "arguments", position)
            ident = _index(data, "id", position)
            pending[hash_key(ident)] = dedup_key(name, arguments)
        else:
            forward += 1  # counts parseable outputs only: malformed ones make positions drift, as in S
            key = pending.pop(hash_key(_index(data, "id", position)), None)
            if key is not None:
                positions.setdefault(key, []).append(forward)
    return {total - max(found) + 1 for found in positions.values() if len(found) > 1}


def _values_at_error(data: Any, position: int) -> Raised:
    if type(data) is list:
        return Raised(position, "TypeError", "no implicit conversion of String into Integer (content JSON is an Array)")
    return Raised(
        position,
        "NoMethodError",
        f"undefined method `values_at' for {ruby_class(data)} (content JSON is not an object)",
    )


def run(
    items: list[dict[str, Any]],
    settings: EpochSettings = EpochSettings(),
    shortener: Shortener = SIZED,
) -> EpochResult:
    """Apply the strategy to ``items`` (not modified); the result says what happened to each.

    ``shortener`` is the version's ``shorten_string`` (1.2.6 sized, 2.x the envelope).
    """
    size = len(items)
    outcomes = [Outcome(d.UNDECIDED, d.NOT_REACHED)] * size
    try:
        return _run(items, settings, outcomes, shortener)
    except Raised as exc:
        error = exc.error
        outcomes[error.position] = Outcome(d.ERROR, d.SCOUT_ERROR)
        return EpochResult([], [], outcomes, error)


def _run(items: Any, settings: Any, outcomes: Any, shortener: Shortener) -> EpochResult:
    for position, message in enumerate(items):
        role = message.get("role")
        if type(role) is not str:  # `m[:role].to_sym` in the count
            raise Raised(
                position,
                "NoMethodError",
                f"undefined method `to_sym' for {ruby_class(role)} (the message has no usable role)",
            )
    total = sum(1 for message in items if message["role"] == "function_call_output")
    threshold, full, compacted, epoch = settings.threshold, settings.full, settings.compacted, settings.size
    if total <= threshold or (full == 0 and compacted == 0) or epoch <= 0:
        for position, message in enumerate(items):
            tool = message["role"] in _TOOL_ROLES
            outcomes[position] = Outcome(d.FULL, d.EPOCH_UNDER if tool else d.NOT_TOOL)
        return EpochResult(list(items), list(range(len(items))), outcomes)
    pinned = threshold + ((total - threshold) - 1) // epoch * epoch  # Ruby's / floors like //
    keep_full = total - pinned + full
    truncate_to = keep_full + compacted
    protected = protected_positions(items, total)

    kept: list[tuple[int, dict[str, Any]]] = []  # newest first
    counted = 0
    truncated = dropped = 0
    for position in range(len(items) - 1, -1, -1):
        message = items[position]
        role = message["role"]
        if role not in _TOOL_ROLES:
            kept.append((position, message))
            outcomes[position] = Outcome(d.FULL, d.NOT_TOOL)
            continue
        content = message.get("content")
        if content is None:
            kept.append((position, message))
            outcomes[position] = Outcome(d.FULL, d.NO_CONTENT)
            continue
        data = _parse(content)
        if data is UNPARSED:
            kept.append((position, message))
            outcomes[position] = Outcome(d.FULL, d.EPOCH_UNPARSED)
            continue
        if type(data) is not dict:
            raise _values_at_error(data, position)
        output = role == "function_call_output"
        if output:
            counted += 1  # a call sees the count that already includes its own output
        if counted <= keep_full:
            kept.append((position, message))
            outcomes[position] = Outcome(d.FULL, d.EPOCH_FULL, counted)
        elif counted in protected:
            kept.append((position, message))
            outcomes[position] = Outcome(d.FULL, d.EPOCH_PROTECTED, counted)
        elif counted <= truncate_to:
            new_json = compact_output(data, position, shortener) if output else compact_call(data, position, shortener)
            if new_json is None:
                kept.append((position, message))
                outcomes[position] = Outcome(d.FULL, d.EPOCH_NOTHING, counted)
            else:
                kept.append((position, {**message, "content": new_json}))  # msg.dup: other keys kept
                outcomes[position] = Outcome(d.TRUNCATED, d.EPOCH_COMPACTED, counted)
                truncated += 1
        else:
            outcomes[position] = Outcome(d.DROPPED, d.EPOCH_DROPPED, counted)
            dropped += 1
    kept.reverse()
    out_messages = [message for _, message in kept]
    origins = [position for position, _ in kept]
    if truncated or dropped:
        notice = {"role": "user", "content": COMPACTION_TEXT.format(truncated=truncated, dropped=dropped)}
        # right after the first remaining tool message, even between a call and its output
        at = next((i + 1 for i, m in enumerate(out_messages) if m["role"] in _TOOL_ROLES), len(out_messages))
        out_messages.insert(at, notice)
        origins.insert(at, -1)
    return EpochResult(out_messages, origins, outcomes, None, truncated, dropped)


def compact_output(data: dict[str, Any], position: int, shortener: Shortener) -> str | None:
    content = data.get("content")
    new = shortener(to_s(content), OUTPUT_SIZE)
    if type(content) is str and new == content:
        return None  # a non-String content never equals its to_s, so it is always replaced
    data["content"] = new
    return _to_json(data, position)


def compact_call(data: dict[str, Any], position: int, shortener: Shortener) -> str | None:
    arguments = data.get("arguments")
    if arguments is None or arguments is False:
        return None
    kind = type(arguments)
    if kind is dict:
        if not arguments:
            return None
        new = {k: shortener(v, ARGUMENT_SIZE) if type(v) is str else v for k, v in arguments.items()}
        if all(a is b or a == b for a, b in zip(arguments.values(), new.values())):
            return None
        data["arguments"] = new
        return _to_json(data, position)
    if kind is list:
        if not any(v is not None and v is not False for v in arguments):
            return None  # `[].any?` is false: kept
        raise Raised(position, "NoMethodError", "undefined method `values' for Array (arguments is an Array)", data)
    raise Raised(
        position,
        "NoMethodError",
        f"undefined method `any?' for {ruby_class(arguments)} (arguments is not a Hash)",
        data,
    )


def _to_json(data: dict[str, Any], position: int) -> str:
    try:
        return rubyjson.dumps(data)
    except rubyjson.RubyJSONError as exc:
        raise Raised(position, exc.exception, str(exc), data) from None


def shorten_tools_epoch(messages: list[dict[str, Any]], settings: EpochSettings | None = None) -> list[dict[str, Any]]:
    """The plain strategy form (list in, list out); raises ValueError where scout-ai would raise."""
    result = run(messages, settings or EpochSettings.resolve())
    if result.error is not None:
        raise ValueError(f"scout-ai would raise {result.error.exception}: {result.error.why}")
    return result.messages
