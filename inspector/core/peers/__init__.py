"""Other frameworks' context policies, reproduced from their source: LangChain, the OpenAI Agents SDK,
Inspect AI, Anthropic's context editing (approximate) and OpenHands' condensers, and a policy of your own.

scout-ai's prompt strategies (``inspector.core.scout``) are one family of policies; these are the
others. Both answer through the planner interface in ``inspector.core.policies``: a chat is read in the
Chat Completions shape the libraries take (``wire``), a policy runs on it (``registry``), and the plan
(``plan.PeerPlan``) gives back the messages sent and a decision per original message.
"""
