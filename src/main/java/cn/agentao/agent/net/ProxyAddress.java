package cn.agentao.agent.net;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;

/**
 * An HTTP proxy named by a variable such as {@code HTTPS_PROXY}: {@code http://[user:password@]host[:port]}, the
 * scheme optional (as curl takes it), port 80 when none is given. The credentials become a ready
 * {@code Proxy-Authorization} value and are never part of {@link #toString()} or of an error message.
 */
record ProxyAddress(String variable, String host, int port, String authorization) {

    /** Parses {@code value} (from {@code variable}); the message of the exception says what is wrong, without secrets. */
    static ProxyAddress parse(String variable, String value) {
        String text = value.strip();
        String withScheme = text.contains("://") ? text : "http://" + text;
        URI uri;
        try {
            uri = new URI(withScheme);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(variable + "=" + masked(text) + " is not a proxy URL (http://host:port)");
        }
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        if (scheme.startsWith("socks")) {
            throw new IllegalArgumentException(variable + "=" + masked(text) + ": SOCKS proxies are not supported; "
                    + "name an HTTP proxy (http://host:port)");
        }
        if (scheme.equals("https")) {
            throw new IllegalArgumentException(variable + "=" + masked(text) + ": proxies spoken to over TLS are not "
                    + "supported; most proxies take http://host:port also for https traffic");
        }
        if (!scheme.equals("http")) {
            throw new IllegalArgumentException(variable + "=" + masked(text) + ": unsupported proxy scheme '" + scheme
                    + "'; name an HTTP proxy (http://host:port)");
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException(variable + "=" + masked(text) + " names no proxy host (http://host:port)");
        }
        int port = uri.getPort() < 0 ? 80 : uri.getPort();
        return new ProxyAddress(variable, host, port, authorization(uri.getRawUserInfo()));
    }

    /** {@code Basic base64(user:password)} from percent-encoded user information, or null when there is none. */
    private static String authorization(String rawUserInfo) {
        if (rawUserInfo == null || rawUserInfo.isEmpty()) return null;
        int colon = rawUserInfo.indexOf(':');
        String user = decode(colon < 0 ? rawUserInfo : rawUserInfo.substring(0, colon));
        String password = colon < 0 ? "" : decode(rawUserInfo.substring(colon + 1));
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static String decode(String part) {
        return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** The value with any user information replaced by {@code ***}, fit for a message. */
    static String masked(String value) {
        return value.replaceAll("(?<=//|^)[^/@]*@", "***@");
    }

    boolean hasCredentials() {
        return authorization != null;
    }

    /** {@code http://host:port}: never the credentials. */
    @Override
    public String toString() {
        String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return "http://" + (hasCredentials() ? "***@" : "") + h + ":" + port;
    }
}
