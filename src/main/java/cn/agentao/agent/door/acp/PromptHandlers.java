package cn.agentao.agent.door.acp;

import cn.agentao.agent.core.Session;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.TurnResult;
import cn.agentao.agent.jsonrpc.JsonRpcException;
import cn.agentao.agent.jsonrpc.RequestContext;
import cn.agentao.agent.util.Json;
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
        Session session = CoreErrors.translated(() -> agent.sessions().require(sessionId));
        List<ContentBlock> prompt = PromptParser.parse(promptArray);
        Session.Turn turn = CoreErrors.translated(session::beginTurn);
        ctx.cancellation().onCancel(turn.cancellation()::cancel);
        return RequestContext.defer(() -> {
            TurnResult result = turn.run(prompt);
            return Json.object().put("stopReason", result.stopReason().wire());
        });
    }

    Object cancel(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        String sessionId = p.requireString("sessionId");
        Session session = agent.sessions().find(sessionId).orElse(null);
        if (session == null) {
            if (ctx.isNotification()) return null;
            throw CoreErrors.unknownSession(sessionId);
        }
        session.cancel();
        return Json.object();
    }
}
