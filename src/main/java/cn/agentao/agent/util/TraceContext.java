package cn.agentao.agent.util;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.regex.Pattern;

/**
 * The W3C trace context ({@code traceparent}) of the request the current thread works for, taken from the
 * request's {@code _meta.traceparent}: log lines written meanwhile carry it, and model HTTP calls send it on as
 * the {@code traceparent} header. Malformed values are ignored (as the W3C specification asks).
 */
public final class TraceContext {
    /** {@code version-traceid-parentid-flags}; version ff and all-zero ids are invalid. */
    private static final Pattern TRACEPARENT = Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");
    private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

    private TraceContext() {}

    /** A request's {@code params._meta.traceparent} when well-formed, else null. */
    public static String fromParams(JsonNode params) {
        JsonNode value = params == null ? null : params.path("_meta").get("traceparent");
        return value != null && value.isTextual() ? validOrNull(value.asText().strip()) : null;
    }

    static String validOrNull(String value) {
        if (!TRACEPARENT.matcher(value).matches() || value.startsWith("ff")) return null;
        if (value.substring(3, 35).chars().allMatch(c -> c == '0') || value.substring(36, 52).chars().allMatch(c -> c == '0')) return null;
        return value;
    }

    /** The current thread's traceparent, or null. */
    public static String current() {
        return CURRENT.get();
    }

    /** Makes {@code traceparent} (may be null) current until the scope closes, then restores the previous one. */
    public static Scope open(String traceparent) {
        String previous = CURRENT.get();
        if (traceparent == null) CURRENT.remove(); else CURRENT.set(traceparent);
        return () -> {
            if (previous == null) CURRENT.remove(); else CURRENT.set(previous);
        };
    }

    /** Closing never throws. */
    public interface Scope extends AutoCloseable {
        @Override void close();
    }
}
