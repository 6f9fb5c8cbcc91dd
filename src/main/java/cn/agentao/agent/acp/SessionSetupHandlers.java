package cn.agentao.agent.acp;

import cn.agentao.agent.engine.SessionJournal;
import cn.agentao.agent.jsonrpc.JsonRpcException;
import cn.agentao.agent.jsonrpc.RequestContext;
import cn.agentao.agent.protocol.Json;
import cn.agentao.agent.protocol.McpServerConfig;
import cn.agentao.agent.session.Session;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

/** session/new (and, with the store, load, resume, list, close, delete). */
final class SessionSetupHandlers {
    private final AcpAgent agent;

    SessionSetupHandlers(AcpAgent agent) {
        this.agent = agent;
    }

    Object newSession(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        Path cwd = p.requireDirectory("cwd");
        List<McpServerConfig> mcp = McpServerParser.parse(p.requireArray("mcpServers"), "mcpServers");
        List<Path> extra = p.optionalDirectories("additionalDirectories");
        if (!agent.engine().configured(cwd)) throw agent.engine().authRequired();

        Session session = new Session(UUID.randomUUID().toString(), cwd, extra, mcp);
        AcpSessionClient client = new AcpSessionClient(agent.endpoint(), session.id(), agent.clientCapabilities());
        agent.engine().open(session, client, SessionJournal.NONE);
        agent.sessions().add(session);
        ctx.afterResponse(() -> agent.engine().announce(session));
        return describe(session);
    }

    /** The part of session/new, load and resume answers that describes the session's settings. */
    ObjectNode describe(Session session) {
        ObjectNode result = Json.object();
        result.put("sessionId", session.id());
        result.set("modes", Json.MAPPER.valueToTree(agent.engine().modes(session)));
        result.set("configOptions", Json.MAPPER.valueToTree(agent.engine().configOptions(session)));
        return result;
    }
}
