package cn.agentao.agent.core.content;

/** A file a tool touches, so the editor can follow along; {@code line} is 1-based or null. */
public record ToolCallLocation(String path, Integer line) {
    public ToolCallLocation(String path) { this(path, null); }
}
