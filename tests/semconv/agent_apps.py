"""A tool-calling support agent on langchain-core's offline fakes, for the instrumentation tests of the
answer an agent gives: it searches the knowledge base, looks the order up, then answers. Each tool-calling
turn announces its call in words, as chat models often do ("I'll look up the refund policy."), so the
model's later turns have those words in their history."""

from __future__ import annotations

from typing import Any

from instrumented_apps import RagChain
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.tools import BaseTool, tool

ORDER = "Order 42 was delivered on 30 April."


def support_agent(rag: RagChain, answer: str) -> tuple[Runnable[str, Any], list[Document]]:
    """The agent as one chain (`support_turn`) answering `answer` last, and the documents its search
    returned once it has run. Its output is the conversation, with no answer key: the answer is read
    from the model calls."""
    found: list[Document] = []

    @tool
    def search_policies(query: str) -> str:
        """Search the shop's policies."""
        found.extend(rag.retriever.invoke(query))
        return "\n\n".join(doc.page_content for doc in found)

    @tool
    def get_order(order_id: str) -> str:
        """Look an order up."""
        return ORDER

    tools: dict[str, BaseTool] = {"search_policies": search_policies, "get_order": get_order}
    model = FakeMessagesListChatModel(responses=[
        AIMessage("I'll look up the refund policy.", tool_calls=[
            {"name": "search_policies", "args": {"query": "refund window"}, "id": "call-1"}]),
        AIMessage("Let me check when your order was delivered.", tool_calls=[
            {"name": "get_order", "args": {"order_id": "42"}, "id": "call-2"}]),
        AIMessage(answer)])

    def turn(question: str) -> dict[str, list[BaseMessage]]:
        messages: list[BaseMessage] = [SystemMessage("You are the shop's support agent."),
                                       HumanMessage(question)]
        while True:
            reply = model.invoke(messages)
            messages.append(reply)
            if not isinstance(reply, AIMessage) or not reply.tool_calls:
                return {"messages": messages}
            messages.extend(tools[call["name"]].invoke(call) for call in reply.tool_calls)

    return RunnableLambda(turn).with_config(run_name="support_turn"), found
