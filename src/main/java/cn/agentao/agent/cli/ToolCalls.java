package cn.agentao.agent.cli;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.tools.BuiltinTools;
import cn.agentao.agent.tools.web.WebSearchConfig;
import cn.agentao.agent.core.ToolCallExecutor;
import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.permission.PermissionEngine;
import cn.agentao.agent.permission.PermissionRules;
import cn.agentao.agent.sandbox.Sandboxes;

import java.nio.file.Path;

/**
 * Builds the process's tool-call runner: the built-in tools under the permission engine and the user's rules, commands
 * in the OS sandbox ({@code AGENT_SANDBOX} from the real environment, never from a project's .env).
 */
public final class ToolCalls {
    private ToolCalls() {}

    public static ToolCallExecutor create(AgentConfig config) {
        Path configDir = config.configDir();
        NetworkGuard guard = NetworkGuard.of(config.network());
        Sandboxes sandboxes = Sandboxes.of(config.sandbox());
        WebSearchConfig.Loaded search = WebSearchConfig.load(config); // config.json "webSearch": web_search's backend
        if (search.problem() != null) System.err.println("agent: " + search.problem());
        BuiltinTools builtins = BuiltinTools.create(guard, search.config());
        return new ToolCallExecutor(builtins, builtins.shell(), new PermissionEngine(
                PermissionRules.loadUserRules(configDir.resolve("permissions.json")), guard, sandboxes::available), sandboxes);
    }
}
