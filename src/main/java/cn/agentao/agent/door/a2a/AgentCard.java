package cn.agentao.agent.door.a2a;

import cn.agentao.agent.core.SlashCommands;
import cn.agentao.agent.core.content.AvailableCommand;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.trust.TrustedProjects;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Path;
import java.util.List;

/** The agent card, read by A2A 0.3 and 1.0 clients: who the agent is, where its JSON-RPC endpoint is, what it can do, how to authenticate. */
final class AgentCard {
    static final String PROTOCOL_VERSION = "0.3.0";
    static final String BEARER_SCHEME = "bearer";

    private AgentCard() {}

    static ObjectNode build(String endpointUrl, String version, boolean tokenRequired, List<Tool> tools, Path cwd, Path configDir) {
        ObjectNode card = Json.object();
        card.put("protocolVersion", PROTOCOL_VERSION).put("name", "agent")
                .put("description", "A coding agent working in " + cwd.getFileName() + ": it reads, searches and edits the "
                        + "project's files and runs commands in a sandbox, asking before anything its mode does not allow.")
                .put("url", endpointUrl).put("preferredTransport", "JSONRPC").put("version", version);
        card.putArray("additionalInterfaces").addObject().put("url", endpointUrl).put("transport", "JSONRPC");
        // A2A 1.0 reads supportedInterfaces (the same endpoint; 1.0 asked for with A2A-Version: 1.0), 0.3 the fields above;
        // HTTP+JSON's routes (/message:send, /tasks/…) hang under the same URL, 1.0 only, named without its last slash:
        // clients append "/message:send" to it, and "//message:send" would be another path
        String restUrl = endpointUrl.endsWith("/") ? endpointUrl.substring(0, endpointUrl.length() - 1) : endpointUrl;
        ArrayNode interfaces = card.putArray("supportedInterfaces");
        interfaces.addObject().put("url", endpointUrl).put("protocolBinding", "JSONRPC").put("protocolVersion", A2aV1Wire.VERSION);
        interfaces.addObject().put("url", restUrl).put("protocolBinding", "HTTP+JSON").put("protocolVersion", A2aV1Wire.VERSION);
        interfaces.addObject().put("url", endpointUrl).put("protocolBinding", "JSONRPC").put("protocolVersion", "0.3");
        // the extended card (GetExtendedAgentCard) needs an authenticated caller, so it exists only with a token
        // no stateTransitionHistory: 1.0's AgentCapabilities has no such member, and 0.3 reads its absence as false
        card.putObject("capabilities").put("streaming", true).put("pushNotifications", true).put("extendedAgentCard", tokenRequired);
        card.putArray("defaultInputModes").add("text/plain").add("application/json").add("image/*");
        card.putArray("defaultOutputModes").add("text/plain");
        ArrayNode skills = card.putArray("skills");
        ObjectNode code = skills.addObject().put("id", "coding").put("name", "Coding")
                .put("description", "Works on the code base: " + String.join("; ", tools.stream().map(t -> t.name() + ": " + firstSentence(t.description())).toList()));
        ArrayNode tags = code.putArray("tags").add("coding");
        tools.forEach(t -> tags.add(t.name()));
        code.putArray("examples").add("Find where the configuration is read and explain it").add("Fix the failing test in src/");
        ObjectNode commands = skills.addObject().put("id", "commands").put("name", "Commands");
        List<AvailableCommand> all = SlashCommands.advertised(SlashCommands.userCommands(cwd, configDir, configDir != null
                        && new TrustedProjects(configDir.resolve(ConfigLocations.TRUSTED_PROJECTS)).trusted(cwd))).stream()
                .filter(c -> !c.name().equals("memory")).toList(); // a caller keeps no memory (A2aHost.keepsMemory)
        commands.put("description", "Slash commands sent as the message text: "
                + String.join("; ", all.stream().map(c -> "/" + c.name() + ": " + c.description()).toList()));
        commands.putArray("tags").add("commands");
        commands.putArray("examples").add("/help");
        if (tokenRequired) {
            card.putObject("securitySchemes").putObject(BEARER_SCHEME).put("type", "http").put("scheme", "bearer")
                    .put("description", "Authorization: Bearer <token>; the token is the value of the server's --token-env variable");
            card.putArray("security").addObject().putArray(BEARER_SCHEME);
        }
        return card;
    }

    /**
     * The card as 1.0 alone has it, for {@code GetExtendedAgentCard} (only 1.0 asks for it): without the members
     * 0.3 clients read ({@code protocolVersion}, {@code url}, {@code preferredTransport}, {@code additionalInterfaces},
     * {@code security}), the bearer scheme in 1.0's {@code SecurityScheme} form ({@code httpAuthSecurityScheme}) and
     * required by {@code securityRequirements}.
     */
    static ObjectNode v1Only(ObjectNode card) {
        ObjectNode v1 = card.deepCopy();
        v1.remove(List.of("protocolVersion", "url", "preferredTransport", "additionalInterfaces", "security", "securitySchemes"));
        if (card.path("securitySchemes").has(BEARER_SCHEME)) {
            ObjectNode bearer = (ObjectNode) card.path("securitySchemes").path(BEARER_SCHEME);
            v1.putObject("securitySchemes").putObject(BEARER_SCHEME).putObject("httpAuthSecurityScheme")
                    .put("scheme", bearer.path("scheme").asText()).put("description", bearer.path("description").asText());
            v1.putArray("securityRequirements").addObject().putObject("schemes").putObject(BEARER_SCHEME).putArray("list");
        }
        return v1;
    }

    private static String firstSentence(String text) {
        if (text == null) return "";
        int dot = text.indexOf(". ");
        String s = dot > 0 ? text.substring(0, dot) : text;
        return s.length() > 160 ? s.substring(0, 159) + "…" : s;
    }
}
