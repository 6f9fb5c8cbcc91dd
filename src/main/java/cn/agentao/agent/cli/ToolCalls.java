package cn.agentao.agent.cli;

import cn.agentao.agent.tools.BuiltinTools;
import cn.agentao.agent.core.ToolCallExecutor;
import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.permission.PermissionEngine;
import cn.agentao.agent.permission.PermissionRules;
import cn.agentao.agent.sandbox.Sandboxes;

import java.nio.file.Path;
import java.util.Map;

/**
 * Builds the process's tool-call runner: the built-in tools under the permission engine and the user's rules, commands
 * in the OS sandbox ({@code AGENT_SANDBOX} from the real environment, never from a project's .env).
 */
public final class ToolCalls {
    /** Set to 1 to let web_fetch reach loopback and private addresses (off by default). */
    public static final String ALLOW_PRIVATE_NETWORK = "AGENT_ALLOW_PRIVATE_NETWORK";

    private ToolCalls() {}

    /** The web guard {@code web_fetch} (and A2A push webhooks) use: private networks only with {@value #ALLOW_PRIVATE_NETWORK}=1. */
    public static NetworkGuard networkGuard(Map<String, String> env) {
        boolean allowPrivate = "1".equals(env.get(ALLOW_PRIVATE_NETWORK)) || "true".equalsIgnoreCase(env.get(ALLOW_PRIVATE_NETWORK));
        return new NetworkGuard(NetworkGuard.HostResolver.SYSTEM, allowPrivate);
    }

    public static ToolCallExecutor create(Map<String, String> env, Path configDir) {
        NetworkGuard guard = networkGuard(env);
        Sandboxes sandboxes = Sandboxes.fromEnvironment(env);
        BuiltinTools builtins = BuiltinTools.create(guard);
        return new ToolCallExecutor(builtins, builtins.shell(), new PermissionEngine(
                PermissionRules.loadUserRules(configDir.resolve("permissions.json")), guard, sandboxes::available), sandboxes);
    }
}
