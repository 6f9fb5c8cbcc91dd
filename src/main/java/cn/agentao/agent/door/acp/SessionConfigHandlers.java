package cn.agentao.agent.door.acp;

import cn.agentao.agent.core.Session;
import cn.agentao.agent.core.content.Setting;
import cn.agentao.agent.door.acp.protocol.ConfigOption;
import cn.agentao.agent.door.acp.protocol.SessionUpdates;
import cn.agentao.agent.jsonrpc.JsonRpcException;
import cn.agentao.agent.jsonrpc.RequestContext;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Set;

/**
 * session/set_mode, session/set_config_option and _agentao.cn/set_model: settings for the next turn; plus
 * Agentao's session/set_model and session/list_models, aliases of the {@code model} config option.
 */
final class SessionConfigHandlers {
    private static final Set<String> CONFIG_KEYS = Set.of("sessionId", "configId", "value");
    private static final Set<String> SET_MODEL_KEYS = Set.of("sessionId", "model");
    private static final Set<String> MODEL_ID_KEYS = Set.of("sessionId", "modelId");
    private static final Set<String> SESSION_KEYS = Set.of("sessionId");

    private final AcpAgent agent;

    SessionConfigHandlers(AcpAgent agent) {
        this.agent = agent;
    }

    Object setMode(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        Session session = session(p);
        String modeId = p.requireNonEmptyString("modeId");
        refuseDuringTurn(session, "change the mode");
        CoreErrors.translated(() -> {
            session.setMode(modeId);
            return null;
        });
        return Json.object();
    }

    Object setConfigOption(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        p.onlyKeys(CONFIG_KEYS);
        Session session = session(p);
        String configId = p.requireString("configId");
        JsonNode value = p.get("value");
        if (value == null) throw JsonRpcException.invalidParams("value is required");
        if (!value.isTextual()) throw JsonRpcException.invalidParams("value must be a string");
        refuseDuringTurn(session, "change " + configId);
        CoreErrors.translated(() -> {
            session.set(configId, value.textValue());
            return null;
        });
        ObjectNode result = Json.object();
        result.set("configOptions", ConfigOption.toTree(SessionUpdates.configOptions(session.settings())));
        return result;
    }

    Object setModel(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        p.onlyKeys(SET_MODEL_KEYS);
        Session session = session(p);
        String model = p.requireNonEmptyString("model").strip();
        refuseDuringTurn(session, "switch the model");
        String active = CoreErrors.translated(() -> session.setModel(model));
        return Json.object().put("model", active);
    }

    /** Agentao's session/set_model {sessionId, modelId}: the model config option under another name. */
    Object setSessionModel(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        p.onlyKeys(MODEL_ID_KEYS);
        Session session = session(p);
        String modelId = p.requireNonEmptyString("modelId");
        refuseDuringTurn(session, "change " + Setting.MODEL);
        CoreErrors.translated(() -> {
            session.set(Setting.MODEL, modelId);
            return null;
        });
        return Json.object();
    }

    /** Agentao's session/list_models {sessionId}: the model picker's choices and the current one. */
    Object listModels(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        p.onlyKeys(SESSION_KEYS);
        Session session = session(p);
        ObjectNode result = Json.object();
        ArrayNode available = result.putArray("availableModels");
        Setting picker = session.settings().stream()
                .filter(o -> Setting.MODEL.equals(o.id())).findFirst().orElse(null);
        if (picker == null) {
            result.putNull("currentModelId");
            return result;
        }
        result.put("currentModelId", picker.currentValue());
        for (Setting.Choice c : picker.choices()) {
            ObjectNode m = available.addObject().put("modelId", c.value()).put("name", c.name());
            if (c.description() != null) m.put("description", c.description());
        }
        return result;
    }

    private Session session(Params p) throws JsonRpcException {
        String id = p.requireString("sessionId");
        return CoreErrors.translated(() -> agent.sessions().require(id));
    }

    private static void refuseDuringTurn(Session session, String what) throws JsonRpcException {
        if (session.hasActiveTurn()) {
            throw JsonRpcException.invalidRequest("cannot " + what + " while session " + session.id() + " has an active turn");
        }
    }
}
