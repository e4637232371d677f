"""The model calls of a stored chat: where each one starts, and the chat as it stood just before it.

``find`` locates the calls, ``history`` rebuilds the inspection at any call (fast where a cut chat is
exactly a prefix of the whole one, by a real re-load of the cut file otherwise) and keeps the
inspections at calls, ``cut`` cuts a chat at a call, ``grow`` extends a history by bytes appended to
its file, ``timeline`` follows one message or text over every call, ``live`` follows the file.
"""
