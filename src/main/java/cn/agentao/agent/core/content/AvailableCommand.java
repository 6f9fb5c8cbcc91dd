package cn.agentao.agent.core.content;

/** A slash command the user can run; {@code inputHint} is non-null when it takes free text after its name. */
public record AvailableCommand(String name, String description, String inputHint) {}
