package cn.agentao.agent.door.acp;

import cn.agentao.agent.jsonrpc.JsonRpcException;
import cn.agentao.agent.core.tool.McpServerConfig;
import cn.agentao.agent.core.tool.McpServerConfig.NameValue;
import com.fasterxml.jackson.databind.JsonNode;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Validates the {@code mcpServers} of session/new, load and resume against the ACP v1 shapes. */
final class McpServerParser {
    private McpServerParser() {}

    static List<McpServerConfig> parse(JsonNode array, String field) throws JsonRpcException {
        List<McpServerConfig> servers = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < array.size(); i++) {
            String at = field + "[" + i + "]";
            JsonNode e = array.get(i);
            if (!e.isObject()) throw JsonRpcException.invalidParams(at + " must be an object");
            Params p = Params.nested(e, at);
            String name = p.requireNonEmptyString("name");
            if (!names.add(name)) throw JsonRpcException.invalidParams(at + ".name \"" + name + "\" is used by another server");
            String type = p.optionalString("type");
            if (type == null || type.equals("stdio")) {
                String command = p.requireNonEmptyString("command");
                List<String> args = strings(p.requireArray("args"), p.field("args"));
                List<NameValue> env = nameValues(p.requireArray("env"), p.field("env"));
                servers.add(new McpServerConfig("stdio", name, command, args, env, null, null));
            } else if (type.equals("http") || type.equals("sse")) {
                String url = p.requireNonEmptyString("url");
                try {
                    URI uri = URI.create(url);
                    if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                        throw new IllegalArgumentException();
                    }
                } catch (IllegalArgumentException ex) {
                    throw JsonRpcException.invalidParams(p.field("url") + " must be an http or https URL");
                }
                List<NameValue> headers = nameValues(p.requireArray("headers"), p.field("headers"));
                servers.add(new McpServerConfig(type, name, null, null, null, url, headers));
            } else {
                throw JsonRpcException.invalidParams(p.field("type") + " must be \"stdio\", \"http\" or \"sse\" (got \"" + type + "\")");
            }
        }
        return servers;
    }

    private static List<String> strings(JsonNode array, String field) throws JsonRpcException {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            if (!array.get(i).isTextual()) throw JsonRpcException.invalidParams(field + "[" + i + "] must be a string");
            out.add(array.get(i).textValue());
        }
        return out;
    }

    private static List<NameValue> nameValues(JsonNode array, String field) throws JsonRpcException {
        List<NameValue> out = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            JsonNode e = array.get(i);
            String at = field + "[" + i + "]";
            if (!e.isObject()) throw JsonRpcException.invalidParams(at + " must be an object {name, value} (not a map)");
            Params p = Params.nested(e, at);
            out.add(new NameValue(p.requireNonEmptyString("name"), p.requireString("value")));
        }
        return out;
    }
}
