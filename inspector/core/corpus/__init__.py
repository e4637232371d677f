"""Scoring settings over a corpus of chats, at every model call of each.

``discover`` finds the chats (files, directories searched recursively, globs) and names what it skips;
``grid`` reads ``--vary`` into the settings to score; ``score`` scores one chat under every setting in
one pass over its calls; ``summary`` adds the chats up per setting (means, worst chat, Pareto frontier,
gates); ``engines`` runs the chats on a local process pool or on Dask. Every result is a frozen value.
"""
