package cn.agentao.agent.door.acp;

import cn.agentao.agent.jsonrpc.JsonRpcException;
import com.fasterxml.jackson.databind.JsonNode;

import java.nio.file.InvalidPathException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/** Typed reads of request params; every failure is {@code -32602} naming the offending field. */
final class Params {
    private final JsonNode node;
    private final String prefix;

    private Params(JsonNode node, String prefix) {
        this.node = node;
        this.prefix = prefix;
    }

    static Params of(JsonNode params) throws JsonRpcException {
        if (params == null || params.isMissingNode()) return new Params(com.fasterxml.jackson.databind.node.MissingNode.getInstance(), "");
        if (!params.isObject()) throw JsonRpcException.invalidParams("params must be an object");
        return new Params(params, "");
    }

    static Params nested(JsonNode node, String path) {
        return new Params(node, path + ".");
    }

    JsonNode raw() { return node; }

    String field(String name) { return prefix + name; }

    boolean has(String name) {
        JsonNode v = node.get(name);
        return v != null && !v.isNull();
    }

    JsonNode get(String name) {
        JsonNode v = node.get(name);
        return v == null || v.isNull() ? null : v;
    }

    /** Refuses any key outside {@code allowed}. */
    void onlyKeys(Set<String> allowed) throws JsonRpcException {
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String n = names.next();
            if (!allowed.contains(n)) throw JsonRpcException.invalidParams("unexpected field " + field(n));
        }
    }

    String requireString(String name) throws JsonRpcException {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) throw JsonRpcException.invalidParams(field(name) + " is required");
        if (!v.isTextual()) throw JsonRpcException.invalidParams(field(name) + " must be a string");
        return v.textValue();
    }

    String requireNonEmptyString(String name) throws JsonRpcException {
        String s = requireString(name);
        if (s.isBlank()) throw JsonRpcException.invalidParams(field(name) + " must not be empty");
        return s;
    }

    String optionalString(String name) throws JsonRpcException {
        JsonNode v = get(name);
        if (v == null) return null;
        if (!v.isTextual()) throw JsonRpcException.invalidParams(field(name) + " must be a string");
        return v.textValue();
    }

    long requireInteger(String name) throws JsonRpcException {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) throw JsonRpcException.invalidParams(field(name) + " is required");
        if (!v.isIntegralNumber()) throw JsonRpcException.invalidParams(field(name) + " must be an integer");
        return v.canConvertToLong() ? v.longValue() : Long.MAX_VALUE;
    }

    JsonNode requireArray(String name) throws JsonRpcException {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) throw JsonRpcException.invalidParams(field(name) + " is required");
        if (!v.isArray()) throw JsonRpcException.invalidParams(field(name) + " must be an array");
        return v;
    }

    JsonNode optionalObject(String name) throws JsonRpcException {
        JsonNode v = get(name);
        if (v != null && !v.isObject()) throw JsonRpcException.invalidParams(field(name) + " must be an object");
        return v;
    }

    /** An absolute path to an existing directory. */
    Path requireDirectory(String name) throws JsonRpcException {
        return directory(requireString(name), field(name));
    }

    List<Path> optionalDirectories(String name) throws JsonRpcException {
        JsonNode v = get(name);
        if (v == null) return List.of();
        if (!v.isArray()) throw JsonRpcException.invalidParams(field(name) + " must be an array");
        List<Path> dirs = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            JsonNode e = v.get(i);
            String f = field(name) + "[" + i + "]";
            if (!e.isTextual()) throw JsonRpcException.invalidParams(f + " must be a string");
            dirs.add(directory(e.textValue(), f));
        }
        return dirs;
    }

    static Path directory(String value, String field) throws JsonRpcException {
        Path p;
        try {
            p = Path.of(value);
        } catch (InvalidPathException e) {
            throw JsonRpcException.invalidParams(field + " is not a valid path");
        }
        if (value.isEmpty() || !p.isAbsolute()) throw JsonRpcException.invalidParams(field + " must be an absolute path (got \"" + value + "\")");
        if (!Files.exists(p)) throw JsonRpcException.invalidParams(field + " does not exist: " + value);
        if (!Files.isDirectory(p)) throw JsonRpcException.invalidParams(field + " is not a directory: " + value);
        return p.normalize();
    }
}
