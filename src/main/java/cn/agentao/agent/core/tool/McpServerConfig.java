package cn.agentao.agent.core.tool;

import java.util.List;

/** One entry of {@code mcpServers}: type is stdio (command/args/env) or http/sse (url/headers). */
public record McpServerConfig(String type, String name, String command, List<String> args,
                              List<NameValue> env, String url, List<NameValue> headers) {
    public record NameValue(String name, String value) {}

    public boolean isStdio() { return "stdio".equals(type); }
}
