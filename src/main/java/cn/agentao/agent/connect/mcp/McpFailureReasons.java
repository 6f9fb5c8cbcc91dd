package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.net.NetworkFailures;
import cn.agentao.agent.util.SecretMask;
import io.modelcontextprotocol.spec.McpError;

import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.TimeoutException;

/**
 * Turns what went wrong with an MCP server into a short reason in plain words for the user, with every
 * possible secret (the server's env and header values) masked. URLs are shown without path or query,
 * which may carry tokens.
 */
final class McpFailureReasons {
    private static final int MAX_LENGTH = 300;
    private static final int MIN_SECRET_LENGTH = 4;

    private McpFailureReasons() {}

    static String describe(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof McpException e) return e.getMessage();
            if (t instanceof McpError e && e.getJsonRpcError() != null) {
                return "the server answered with an error: " + e.getJsonRpcError().message();
            }
            if (t instanceof ConnectException) return "connection refused";
            if (t instanceof UnknownHostException) return "unknown host";
            if (t instanceof HttpTimeoutException || t instanceof TimeoutException) return "no answer in time";
        }
        String network = NetworkFailures.describe(failure); // TLS and proxy failures
        if (network != null) return network;
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String message = root.getMessage();
        return message == null || message.isBlank() ? root.getClass().getSimpleName() : message.strip();
    }

    /** Masks the secrets and keeps the reason short, on one line. */
    static String clean(String reason, Collection<String> secrets) {
        String out = mask(reason, secrets).replaceAll("\\s+", " ").strip();
        return out.length() > MAX_LENGTH ? out.substring(0, MAX_LENGTH - 1) + "…" : out;
    }

    /** Replaces every secret (values shorter than 4 characters are not taken for secrets) by {@code ***}. */
    static String mask(String text, Collection<String> secrets) {
        return SecretMask.mask(text, secrets.stream().filter(Objects::nonNull).map(String::strip).toList(),
                MIN_SECRET_LENGTH);
    }

    /** {@code scheme://host:port} of a URL: enough to recognise it, nothing that may be a token. */
    static String address(String url) {
        try {
            URI u = URI.create(url);
            return u.getScheme() + "://" + u.getHost() + (u.getPort() >= 0 ? ":" + u.getPort() : "");
        } catch (IllegalArgumentException e) {
            return "the configured URL";
        }
    }
}
