"""One chat scored under every setting of a grid, at every model call, in one pass over its calls.

The chat is read once (``ChatHistory``). What does not depend on the thresholds is found once: the calls,
the repeated tool calls (``analysis.refetch.repeats``), each probe's occurrences and the first call each
could be sent at. Then, call by call, each setting's prompt is read:

- where the chat at the call is the whole chat's first messages under plain shorten_tools (a JSON chat, a
  plain scout chat: ``ChatHistory.prefix_count``), from the whole chat's tool facts: ``PrefixSentGrid`` for
  the characters and where the walk keeps, cuts and drops, ``tier_in_sent`` for the tier of a message, and
  for a repeat a few integer comparisons (``_fetched``); no chat is cut and no plan is built;
- anywhere else, from the plan of the chat at the call (``history.at(n).prompt(thresholds)``), each cut
  chat built once for the whole grid; the history keeps a few, so memory stays that of one chat.

The metrics, per setting (the README's definitions):

- chars: the characters of the prompt's messages at each call (``calls``' ``chars``; 0 where scout-ai
  raises), summed; tokens: ``estimate_tokens`` of that sum (characters / 4, an estimate);
- refetches: ``analysis.refetch``'s rule, one per repeated tool call;
- losses (per probe): the calls at which some occurrence of the text had been written before the call and
  none is sent with the text intact (the ``why --timeline`` rule: a truncated message must still hold it;
  where scout-ai raises nothing is sent);
- raises: the calls at which scout-ai raises, and the first one's error in words.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.core.analysis.refetch import Repeat, chat_repeats, refetched
from inspector.core.analysis.visibility import Spot, survives
from inspector.core.calls.history import ChatHistory
from inspector.core.corpus.grid import Setting
from inspector.core.errors import InputError, UsageError
from inspector.core.inspection import Inspection, collector_paused, thresholds_for
from inspector.core.policies import decision as d
from inspector.core.ruby.json import RubyJSONError
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.settings import Thresholds
from inspector.core.scout.strategies import UnknownStrategy
from inspector.core.scout.strategies.shorten_tools import PrefixSent, PrefixSentGrid, tier_in_sent
from inspector.core.scout.tool_facts import NOTHING_TO_SHORTEN, ToolFacts
from inspector.core.scout.totals import estimate_tokens
from inspector.core.setup import ChatSource, Setup

if TYPE_CHECKING:
    from inspector.core.peers.registry import PolicySettings

Thresholds5 = tuple[int, int, int, int, int]


@dataclass(frozen=True, slots=True)
class Job:
    """What every chat is scored under: picklable, handed once to each worker."""

    setup: Setup  # the current setting (--set, config files, strategies, version)
    settings: tuple[Setting, ...]  # the grid, in order (the current setting among them if scored)
    probes: tuple[str, ...] = ()
    regex: bool = False
    ignore_case: bool = False
    input_format: str | None = None


@dataclass(frozen=True, slots=True)
class SettingScore:
    """One chat under one setting."""

    chars: int
    refetches: int
    losses: tuple[int, ...]  # per probe, in --probe order
    raises: int  # calls at which scout-ai raises (nothing is sent)
    first_refetch: int | None  # the first call that refetched
    error: str | None  # the first call at which scout-ai raises, in words

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.chars)

    @property
    def lost(self) -> int:
        return sum(self.losses)


@dataclass(frozen=True, slots=True)
class ChatScore:
    path: str
    calls: int
    error: str | None  # the chat could not be read (per_setting is then empty), or scout-ai raises on it
    per_setting: tuple[SettingScore, ...]
    read: bool = True  # False: the chat could not be read at all


def _readable(setup: Setup) -> Setup:
    """The setup a chat is read under: with ``--vary policy=...`` the --set values may be other policies'
    settings, which scout-ai's thresholds do not take (each grid point's setup keeps its own)."""
    return setup if setup.policy is not None else setup.scout_only()


_LAST_JOB: list[tuple[Job, tuple[tuple[Setup, ...], tuple[PolicySettings | None, ...]]]] = []


def _setups(job: Job) -> tuple[tuple[Setup, ...], tuple[PolicySettings | None, ...]]:
    """Each setting's setup and, under another framework's policy, its settings: the same for every chat of a
    job, so made once (by identity: a worker scores every chat under one job)."""
    last = _LAST_JOB[-1] if _LAST_JOB else None  # one read: a Dask worker's thread may score beside this one
    if last is not None and last[0] is job:
        return last[1]
    setups = tuple(s.setup(job.setup) for s in job.settings)
    found = (setups, tuple(s.policy_settings() for s in setups))
    _LAST_JOB[:] = [(job, found)]
    return found


def score_chat(path: str, job: Job) -> ChatScore:
    """The chat under every setting of ``job``; a chat that cannot be read is a score with its error."""
    try:
        # reading and scoring a chat allocates tens of thousands of objects and makes no cycles: each collection
        # would walk them all again (measured: 3% of a corpus's instructions)
        with collector_paused():
            history = ChatHistory(ChatSource.of(path, job.input_format), _readable(job.setup))
            return _Scorer(history, job).run()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # never fatal: the chat is reported with its error and counted
        return ChatScore(path, 0, error_line(exc), (), read=False)


def error_line(exc: BaseException) -> str:
    if isinstance(exc, InputError):
        where = f"line {exc.line}: " if exc.line else ""
        return f"{where}{exc.what}"  # the chat's path is said beside it
    if isinstance(exc, UsageError | UnknownStrategy):
        return str(exc)
    if isinstance(exc, RubyJSONError):
        return f"scout-ai would raise {exc.exception}: {exc}"
    if isinstance(exc, OSError):
        return f"cannot read ({exc.strerror or exc})"
    if isinstance(exc, MemoryError):
        return "ran out of memory"
    if isinstance(exc, RecursionError):
        return "input nested too deeply"
    return f"unexpected error ({type(exc).__name__}: {exc})"


def response_numbers(history: ChatHistory) -> dict[int, int]:
    """``timeline.call_numbers(history)``: each message of the whole chat in a call's response -> that call's
    number, the calls' responses read in one loop (a corpus asks it of every chat with a repeat)."""
    final, source = history.final_index, history.source
    out: dict[int, int] = {}
    for call in history.calls:
        number = call.number
        for message in source[call.start : call.end]:
            index = final.get(id(message))
            if index is not None:
                out[index] = number
    return out


@dataclass(slots=True)
class _Occurrence:
    index: int  # the message in the whole chat
    first: int  # the first call that could send it
    spot: Spot
    content: Any
    kept: bool | None = None  # whether the shortened text (plain shorten_tools) still holds it


_PLAIN_VALUES: dict[Setup, Thresholds5] = {}  # per setup, the values of a chat without config lines


class _Tally:
    __slots__ = ("chars", "error", "first_refetch", "losses", "raises", "refetches")

    def __init__(self, probes: int):
        self.chars = self.refetches = self.raises = 0
        self.losses = [0] * probes
        self.first_refetch: int | None = None
        self.error: str | None = None

    def score(self) -> SettingScore:
        return SettingScore(self.chars, self.refetches, tuple(self.losses), self.raises, self.first_refetch, self.error)


class _Scorer:
    def __init__(self, history: ChatHistory, job: Job):
        self.history, self.job = history, job
        whole = history.whole
        self.whole = whole
        self.setups, self.policies = _setups(job)
        self._thresholds: dict[tuple[int, object], Thresholds] = {}
        self._values: list[Thresholds5] = []  # per setting, on the fast path
        self._grid: PrefixSentGrid | None = None
        self._kept_chars = 0  # on the fast path, sent at some calls by every setting (``_fast_call``)
        self.tallies = [_Tally(len(job.probes)) for _ in job.settings]
        self.repeats: dict[int, list[Repeat]] = {}
        found = chat_repeats(whole.facts)
        numbers = response_numbers(history) if found else {}
        for repeat in found:
            number = numbers.get(repeat.call)
            if number is not None:  # a response no call counts holds no call either
                self.repeats.setdefault(number, []).append(repeat)
        self.occurrences = [self._occurrences(text) for text in job.probes]
        self.fast = history.counts_fast and not any(self.policies)
        self.facts: ToolFacts = whole.facts

    def _occurrences(self, text: str) -> list[_Occurrence]:
        from inspector.core.analysis.trace import trace  # only with --probe: a corpus without one never imports it

        history, whole = self.history, self.whole
        found = [o for o in trace(whole, text, regex=self.job.regex, ignore_case=self.job.ignore_case).occurrences]
        if not found:
            return []
        where = {id(m): k for k, m in enumerate(history.source)}
        starts = [c.start for c in history.calls]
        out = []
        for o in found:
            if o.message is None:
                continue  # consumed before the strategies: never sent, at no call
            at = where.get(id(whole.chat.messages[o.message]))
            if at is None:
                continue
            k = bisect_right(starts, at)  # the first call whose response starts after the message
            if k < len(starts):
                content = whole.chat.messages[o.message].fields.get("content")
                out.append(_Occurrence(o.message, k + 1, o.spot, content))
        return out

    def thresholds(self, k: int, inspection: Inspection) -> Thresholds:
        """Setting ``k`` for the chat at a call: its own config lines count, as scout-ai read them then."""
        config = inspection.chat.config
        key = (k, tuple(sorted(config.items())))
        found = self._thresholds.get(key)
        if found is None:
            found = self._thresholds[key] = thresholds_for(inspection.chat, self.setups[k])
        return found

    def _fast_values(self, k: int) -> Thresholds5:
        """Setting ``k``'s values for the whole chat; a chat without config lines has those of every other
        one (resolving them reads the config files and environment: a tenth of a millisecond, per chat)."""
        if self.whole.chat.config:
            return self.thresholds(k, self.whole).as_tuple()
        setup = self.setups[k]
        found = _PLAIN_VALUES.get(setup)
        if found is None:
            if len(_PLAIN_VALUES) > 256:
                _PLAIN_VALUES.clear()
            found = _PLAIN_VALUES[setup] = self.thresholds(k, self.whole).as_tuple()
        return found

    def run(self) -> ChatScore:
        history = self.history
        for number in range(1, len(history) + 1):
            count = history.prefix_count(number) if self.fast else None
            if count is not None:
                self._fast_call(number, count)
            else:
                self._planned_call(number)
        for tally in self.tallies:
            tally.chars += self._kept_chars
        scores = tuple(t.score() for t in self.tallies)
        error = next(
            (f"under {s.label()}: {t.error}" for s, t in zip(self.job.settings, scores) if t.error is not None),
            None,
        )
        return ChatScore(history.path, len(history), error, scores)

    def _fast_call(self, number: int, count: int) -> None:
        facts = self.facts
        if self._grid is None:  # the whole chat's config lines: the same values at every call
            self._values = [self._fast_values(k) for k in range(len(self.tallies))]
            self._grid = PrefixSentGrid(facts, self._values)
        kept, passed = self._grid.passed(count)
        fetched = self._fetched(number) if passed and number in self.repeats else None
        if kept.error is not None or self.occurrences:
            sents = [kept] * len(self.tallies)
            for k, sent in passed:
                sents[k] = sent
            for k, sent in enumerate(sents):
                self._sent(number, k, sent, fetched)
            return
        # what every setting whose budget is not passed sends (all kept: nothing refetched) is counted once for
        # all (``_kept_chars``) and taken back from the others, which are read here
        counted = kept.chars_after
        self._kept_chars += counted
        tallies, values = self.tallies, self._values
        for k, (chars, error, start, drop_from, base) in passed:
            tally = tallies[k]
            if error is not None:
                tally.chars -= counted
                self._raised(tally, number, error.describe())
                continue
            tally.chars += chars - counted
            if fetched:
                full, most = values[k][1], values[k][3]
                for newest, newest_count, whole, whole_count in fetched:
                    if (
                        newest < start
                        or (newest < drop_from and newest_count - base < full)
                        or (whole < drop_from and whole_count - base <= most)
                    ):
                        continue  # an earlier output is sent in full
                    tally.refetches += 1
                    if tally.first_refetch is None:
                        tally.first_refetch = number

    def _sent(self, number: int, k: int, sent: PrefixSent, fetched: list[tuple[int, int, int, int]] | None) -> None:
        """Setting ``k``'s prompt at call ``number``: ``_fast_call``'s reading, with the probes."""
        tally = self.tallies[k]
        chars, error, start, drop_from, base = sent
        if error is not None:
            self._raised(tally, number, error.describe())
            self._losses(tally, number, lambda o: False)
            return
        tally.chars += chars
        values = self._values[k]
        if fetched:
            full, most = values[1], values[3]
            for newest, newest_count, whole, whole_count in fetched:
                if (
                    newest < start
                    or (newest < drop_from and newest_count - base < full)
                    or (whole < drop_from and whole_count - base <= most)
                ):
                    continue
                tally.refetches += 1
                if tally.first_refetch is None:
                    tally.first_refetch = number
        if self.occurrences:
            facts = self.facts

            def kept(o: _Occurrence) -> bool:
                return self._kept_fast(o, tier_in_sent(facts, o.index, sent, values))

            self._losses(tally, number, kept)

    def _fetched(self, number: int) -> list[tuple[int, int, int, int]]:
        """The repeats at call ``number`` as what decides whether a prompt that does not raise sends one of their
        earlier outputs in full (``tier_in_sent``): the newest output (the smallest position) and its counter,
        which any output under the budget or recent enough is no newer than; and the newest output with nothing
        to shorten and its counter, the first kept whole in the middle band (an output past ``size``: none).

        An output is sent in full if it is before the budget; or before ``drop_from`` and recent (its
        counter under full_tool_outputs); or before ``drop_from``, not past max_tool_outputs, and with nothing
        to shorten. Counters grow with the position, so for each clause the smallest position decides.
        """
        facts = self.facts
        position, outs, short, size = facts.position, facts.outs, facts.short, len(facts.order)
        found = []
        for repeat in self.repeats[number]:
            places = [position[o] for o in repeat.outputs]
            whole = size
            for p in places:
                # one whose shortening raises counts too: in the middle band it would make the prompt raise
                if p < whole and (short[p] if short[p] is not None else facts.shortened(p)) == NOTHING_TO_SHORTEN:
                    whole = p
            newest = min(places)
            found.append((newest, outs[newest], whole, outs[whole] if whole < size else 0))
        return found

    def _kept_fast(self, o: _Occurrence, tier: str) -> bool:
        if tier == d.FULL:
            return True
        if tier != d.TRUNCATED:
            return False
        if o.kept is None:  # plain shorten_tools cuts a message to the same text at every call
            p = self.facts.position.get(o.index)
            shown = self.facts.shortened_text(p) if p is not None else None
            o.kept = survives(o.spot, o.content, shown)
        return o.kept

    def _planned_call(self, number: int) -> None:
        from inspector.core.calls.timeline import index_at  # with trace, not imported where every call is fast

        history = self.history
        inspection = history.at(number)
        at: dict[int, int | None] = {}

        def where(index: int) -> int | None:
            if index not in at:
                at[index] = index_at(history, number, index)
            return at[index]

        for k, tally in enumerate(self.tallies):
            policy = self.policies[k]
            if policy is not None:
                prompt = inspection.policy_prompt(policy)
            else:
                prompt = inspection.scout_prompt(self.thresholds(k, inspection))
            if prompt.error is not None:
                self._raised(tally, number, prompt.error.describe())
                self._losses(tally, number, lambda o: False)
                continue
            tally.chars += prompt.totals().chars_after

            def tier(index: int, prompt: Prompt = prompt) -> d.Tier:
                found = where(index)
                return d.CONSUMED if found is None else prompt.tier_of(found)

            def kept(o: _Occurrence, prompt: Prompt = prompt) -> bool:
                found = where(o.index)
                if found is None:
                    return False
                t = prompt.tier_of(found)
                if t == d.FULL:
                    return True
                return t == d.TRUNCATED and survives(o.spot, o.content, prompt.visible_content(found))

            self._refetches(tally, number, lambda index: tier(index) == d.FULL)
            self._losses(tally, number, kept)

    def _raised(self, tally: _Tally, number: int, what: str) -> None:
        tally.raises += 1
        if tally.error is None:
            tally.error = f"it raises at call {number}: {what}"

    def _refetches(self, tally: _Tally, number: int, sent_full: Callable[[int], bool]) -> None:
        for repeat in self.repeats.get(number, ()):
            if refetched(repeat, sent_full):
                tally.refetches += 1
                if tally.first_refetch is None:
                    tally.first_refetch = number

    def _losses(self, tally: _Tally, number: int, kept: Callable[[_Occurrence], bool]) -> None:
        for p, occurrences in enumerate(self.occurrences):
            written = [o for o in occurrences if o.first <= number]
            if written and not any(kept(o) for o in reversed(written)):
                tally.losses[p] += 1
