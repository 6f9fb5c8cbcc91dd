package cn.agentao.agent.core;

import cn.agentao.agent.connect.mcp.ProjectMcpFile;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.protocol.SessionUpdate;
import cn.agentao.agent.protocol.ToolCallContent;
import cn.agentao.agent.protocol.ToolCallLocation;
import cn.agentao.agent.protocol.ToolCallStatus;
import cn.agentao.agent.protocol.ToolKind;
import cn.agentao.agent.util.Cancellation;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

/**
 * The one question an untrusted project's {@code .agent/mcp.json} raises: a standard
 * {@code session/request_permission} whose tool call lists the servers as written (name → command or URL, with
 * {@code ${…}} unexpanded, so no secret travels). Asked after the client knows the session, on its own thread,
 * so {@code session/new} is never held up. "Trust" is kept in the user's {@code trusted-projects.json};
 * "only this time" starts them for this session; "never" is kept until the file changes; reject, cancel, an
 * error or no answer leave them stopped and the question comes again next session.
 */
final class ProjectTrustQuestion {
    private static final Logger log = LoggerFactory.getLogger(ProjectTrustQuestion.class);
    static final String TRUST = "allow_always";
    static final String ONCE = "allow_once";
    static final String NOT_NOW = "reject_once";
    static final String NEVER = "reject_always";

    private final Engine engine;
    private final SessionRuntime rt;
    private final ProjectMcpFile file;
    private final Path project;

    ProjectTrustQuestion(Engine engine, SessionRuntime rt, ProjectMcpFile file) {
        this.engine = engine;
        this.rt = rt;
        this.file = file;
        this.project = rt.session().cwd();
    }

    void ask() {
        String id = "trust_" + UUID.randomUUID();
        List<String> servers = file.describe();
        String text = "This project's " + file.file() + " starts these MCP servers (programs that run as you, or "
                + "servers that get your headers):\n" + String.join("\n", servers.stream().map(s -> "- " + s).toList())
                + "\nTrusting the project also lets its .env choose model providers and endpoints.";
        SessionUpdate.ToolCall call = new SessionUpdate.ToolCall(id, "Start the project's MCP servers: " + String.join("; ", servers),
                ToolKind.EXECUTE, ToolCallStatus.PENDING, List.of(ToolCallContent.text(text)),
                List.of(new ToolCallLocation(file.file().toString())), null, null);
        rt.client().update(call);
        String answer = answer(call);
        boolean start = answer.equals(TRUST) || answer.equals(ONCE);
        rt.client().update(new SessionUpdate.ToolCallUpdate(id, null, null, start ? ToolCallStatus.COMPLETED : ToolCallStatus.FAILED,
                null, null, null, null));
        try {
            if (answer.equals(TRUST) || answer.equals(NEVER)) {
                engine.trust().record(project, answer.equals(TRUST), file);
                engine.reloadConfiguration(project);
            }
        } catch (IOException e) {
            engine.notice(rt, "Your answer could not be saved in " + engine.trust().file() + " (" + e.getMessage()
                    + "); you will be asked again next session.");
        }
        if (start) {
            engine.startProjectServers(rt, file);
        } else {
            engine.notice(rt, "The project's MCP servers (" + file.file() + ") were not started"
                    + (answer.equals(NEVER) ? "; you will not be asked again until the file changes."
                    : "; you will be asked again next session."));
        }
    }

    /** The chosen option id; anything but a selection of one of ours counts as "not now". */
    private String answer(SessionUpdate.ToolCall call) {
        ObjectNode params = Json.object();
        ObjectNode toolCall = (ObjectNode) Json.MAPPER.valueToTree(call);
        toolCall.remove("sessionUpdate");
        params.set("toolCall", toolCall);
        ArrayNode options = params.putArray("options");
        options.addObject().put("optionId", TRUST).put("name", "Trust this project and start them").put("kind", "allow_always");
        options.addObject().put("optionId", ONCE).put("name", "Start them this time only").put("kind", "allow_once");
        options.addObject().put("optionId", NOT_NOW).put("name", "Not now").put("kind", "reject_once");
        options.addObject().put("optionId", NEVER).put("name", "Never for this file").put("kind", "reject_always");
        try {
            JsonNode r = rt.client().call("session/request_permission", params, Cancellation.NONE);
            JsonNode outcome = r.path("outcome");
            if (!"selected".equals(outcome.path("outcome").asText())) return NOT_NOW;
            String option = outcome.path("optionId").asText();
            return List.of(TRUST, ONCE, NOT_NOW, NEVER).contains(option) ? option : NOT_NOW;
        } catch (Exception e) {
            log.info("the project trust question failed ({}); the project's MCP servers stay stopped", e.getClass().getSimpleName());
            return NOT_NOW;
        }
    }
}
