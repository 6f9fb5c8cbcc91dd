package cn.agentao.agent.door.acp;

import cn.agentao.agent.jsonrpc.JsonRpcException;
import cn.agentao.agent.jsonrpc.RequestContext;
import cn.agentao.agent.protocol.ContentBlock;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.protocol.StopReason;
import cn.agentao.agent.core.Session;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/** session/prompt and session/cancel. Both run on the reader thread so a cancel is ordered after its prompt. */
final class PromptHandlers {
    private final AcpAgent agent;

    PromptHandlers(AcpAgent agent) {
        this.agent = agent;
    }

    Object prompt(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        String sessionId = p.requireString("sessionId");
        JsonNode promptArray = p.requireArray("prompt");
        Session session = agent.sessions().require(sessionId);
        List<ContentBlock> prompt = PromptParser.parse(promptArray);
        Session.Turn turn = session.tryBeginTurn();
        if (turn == null) throw JsonRpcException.invalidRequest("session " + sessionId + " already has an active turn");
        ctx.cancellation().onCancel(turn.cancellation()::cancel);
        return RequestContext.defer(() -> {
            try {
                StopReason reason = agent.engine().runTurn(session, prompt, turn.cancellation());
                return Json.object().put("stopReason", reason.wire());
            } finally {
                session.endTurn(turn);
            }
        });
    }

    Object cancel(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        String sessionId = p.requireString("sessionId");
        Session session = agent.sessions().find(sessionId);
        if (session == null) {
            if (ctx.isNotification()) return null;
            throw JsonRpcException.invalidRequest("unknown sessionId: " + sessionId);
        }
        session.cancelTurn();
        return Json.object();
    }
}
