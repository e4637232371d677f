"""What a context policy gives the rest of the inspector, whichever framework it comes from.

A policy turns a chat's messages into what the model is sent, and says for every original message
what happened to it (``decision``). scout-ai's prompt strategies (``inspector.core.scout.strategies``)
are one family of policies; the interface and the decision vocabulary live here so that every family
answers through the same names and nothing outside a family reaches into its private fields.
"""
