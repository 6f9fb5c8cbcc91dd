package cn.agentao.agent.core.hook;

import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.util.Cancellation;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Path;

/**
 * One event of one session for the hooks: {@code subject} is what matchers test (a tool's name, SessionStart's
 * source; null for events without matchers), {@code payload} the JSON written to each hook's stdin, {@code cwd} the
 * session's directory (hooks run there; its project hooks count only when the project is trusted), {@code children}
 * the scrubbed environment hooks get.
 */
public record HookCall(HookEvent event, String subject, ObjectNode payload, String sessionId, Path cwd,
                       ChildEnvironment children, Cancellation cancel) {}
