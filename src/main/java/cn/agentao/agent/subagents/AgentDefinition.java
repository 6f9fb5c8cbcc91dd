package cn.agentao.agent.subagents;

import java.util.List;

/**
 * One subagent the {@code task} tool can start: from a built-in or a Markdown file with front matter.
 *
 * @param tools        the tools it is offered (our names); empty: every tool of the parent but {@code task}
 * @param model        {@code provider/model} or a bare model of the parent's provider; null: the parent's model
 * @param maxTurns     the model calls its run may make
 * @param instructions its system prompt's own section (the file's body)
 * @param readOnly     whether it may only read: its tools are all read-only ones, so it runs in a read-only mode
 * @param origin       where it was found, for people: {@code built-in}, {@code .agent/agents/x.md}, …
 */
public record AgentDefinition(String name, String description, List<String> tools, String model, int maxTurns,
                              String instructions, boolean readOnly, String origin) {
    public AgentDefinition {
        tools = List.copyOf(tools);
    }
}
