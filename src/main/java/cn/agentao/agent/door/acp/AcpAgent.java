package cn.agentao.agent.door.acp;

import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.jsonrpc.JsonRpcEndpoint;
import cn.agentao.agent.jsonrpc.JsonRpcException;
import cn.agentao.agent.jsonrpc.MethodTable;
import cn.agentao.agent.jsonrpc.MethodTable.Dispatch;
import cn.agentao.agent.jsonrpc.RequestContext;
import cn.agentao.agent.door.acp.protocol.ClientCapabilities;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.transport.LineReader;
import cn.agentao.agent.transport.MessageWriter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;

/** The ACP front door: wires the method table to the engine over one stdio connection. */
public final class AcpAgent {
    public static final String NAME = "agent";
    public static final String TITLE = "Agent";
    public static final String EXT_SET_MODEL = "_agentao.cn/set_model";
    public static final String EXT_ASK_USER = "_agentao.cn/ask_user";
    /** The one authentication method: a model provider configured in the environment or config files. */
    public static final String AUTH_METHOD_ID = "model-provider-env";
    /** A session method called before the initialize handshake (the LSP code ACP clients expect). */
    static final int SERVER_NOT_INITIALIZED = -32002;

    /** What this build truthfully supports, advertised in initialize. */
    public record Features(boolean loadSession, boolean sessionStore, boolean mcpHttp, boolean mcpSse) {
        public static final Features ALL = new Features(true, true, true, true);
    }

    private final JsonRpcEndpoint endpoint;
    private final SessionService sessions;
    private final Features features;
    private final String version;
    private volatile ClientCapabilities clientCapabilities = ClientCapabilities.NONE;
    private volatile boolean initialized;

    public AcpAgent(InputStream in, OutputStream out, SessionService sessions, Features features, String resume, String version,
                    long maxMessageBytes) {
        this.sessions = sessions;
        this.features = features;
        this.version = version;
        MethodTable table = new MethodTable();
        this.endpoint = new JsonRpcEndpoint(new LineReader(in, maxMessageBytes), new MessageWriter(out), table, maxMessageBytes);
        SessionSetupHandlers setup = new SessionSetupHandlers(this, resume);
        PromptHandlers prompts = new PromptHandlers(this);
        SessionConfigHandlers config = new SessionConfigHandlers(this);
        table.gate(method -> initialized ? null
                : new JsonRpcException(SERVER_NOT_INITIALIZED, method + " called before initialize handshake"));
        table.add("initialize", Dispatch.INLINE, false, this::initialize)
                .add("authenticate", Dispatch.CONCURRENT, true, this::authenticate)
                .add("session/new", Dispatch.CONCURRENT, true, setup::newSession)
                .add("session/load", Dispatch.CONCURRENT, true, setup::load)
                .add("session/resume", Dispatch.CONCURRENT, true, setup::resume)
                .add("session/list", Dispatch.CONCURRENT, true, setup::list)
                .add("session/close", Dispatch.INLINE, true, setup::close)
                .add("session/delete", Dispatch.CONCURRENT, true, setup::delete)
                .add("session/prompt", Dispatch.INLINE, true, prompts::prompt)
                .add("session/cancel", Dispatch.INLINE, true, prompts::cancel)
                .add("session/set_mode", Dispatch.INLINE, true, config::setMode)
                .add("session/set_config_option", Dispatch.INLINE, true, config::setConfigOption)
                .add(EXT_SET_MODEL, Dispatch.INLINE, true, config::setModel)
                .add("session/set_model", Dispatch.INLINE, true, config::setSessionModel)
                .add("session/list_models", Dispatch.INLINE, true, config::listModels);
    }

    /** Serves until the client closes stdin, then winds down within {@code grace}. */
    public void serve(Duration grace) {
        endpoint.run();
        shutdown(grace);
    }

    /** Cancels running turns, answers what is pending (bounded by {@code grace}) and releases every session. */
    public void shutdown(Duration grace) {
        endpoint.close();
        sessions.cancelAll();
        endpoint.awaitIdle(grace);
        sessions.close();
        endpoint.flush(Duration.ofMillis(500));
    }

    SessionService sessions() { return sessions; }

    /** The host of session {@code id} on this connection. */
    AcpHost host(String id) {
        return new AcpHost(new AcpSessionClient(endpoint, id, clientCapabilities), id);
    }

    private Object initialize(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        p.requireInteger("protocolVersion");
        JsonNode caps = p.optionalObject("clientCapabilities");
        p.optionalObject("clientInfo");
        clientCapabilities = ClientCapabilities.from(caps);
        initialized = true;

        ObjectNode result = Json.object();
        result.put("protocolVersion", 1);
        ObjectNode agentCaps = result.putObject("agentCapabilities");
        agentCaps.put("loadSession", features.loadSession());
        agentCaps.putObject("promptCapabilities").put("image", true).put("audio", false).put("embeddedContext", true);
        agentCaps.putObject("mcpCapabilities").put("http", features.mcpHttp()).put("sse", features.mcpSse());
        ObjectNode sessionCaps = agentCaps.putObject("sessionCapabilities");
        if (features.sessionStore()) {
            sessionCaps.putObject("list");
            sessionCaps.putObject("resume");
            sessionCaps.putObject("close");
            sessionCaps.putObject("delete");
        }
        ArrayNode auth = result.putArray("authMethods");
        auth.addObject().put("id", AUTH_METHOD_ID).put("name", "Model provider from the environment")
                .put("description", sessions.authHelp());
        result.putObject("agentInfo").put("name", NAME).put("title", TITLE).put("version", version);
        ArrayNode extensions = result.putObject("_meta").putArray("_agentao.cn/extensions");
        extensions.addObject().put("method", EXT_SET_MODEL)
                .put("description", "Switch the session's model for the next turn: {sessionId, model} -> {model}");
        extensions.addObject().put("method", EXT_ASK_USER)
                .put("description", "Agent -> client: ask the user a free-text question: {sessionId, question, header?, options?, multiple?, allowCustom?} -> {outcome:\"answered\", text} | {outcome:\"cancelled\"}");
        return result;
    }

    private Object authenticate(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        String methodId = p.requireString("methodId");
        if (!AUTH_METHOD_ID.equals(methodId)) {
            throw JsonRpcException.invalidParams("methodId \"" + methodId + "\" is not one of the advertised authMethods");
        }
        sessions.reloadConfiguration();
        CoreErrors.translated(() -> {
            sessions.requireConfigured(null);
            return null;
        });
        return Json.object();
    }
}
