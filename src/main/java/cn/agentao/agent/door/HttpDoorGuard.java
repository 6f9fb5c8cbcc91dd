package cn.agentao.agent.door;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What every HTTP endpoint the agent serves checks before its handler sees a request, so that a web page the user
 * visits cannot drive it, neither cross-site nor through DNS rebinding:
 * <ol>
 *   <li>{@code Host} names this server: on loopback {@code localhost}, {@code 127.0.0.1} or {@code [::1]} with the
 *   port; on another address that address with the port (on the wildcard address, any address of this machine);
 *   or a name given with {@code --allowed-host}. Else 421 (Misdirected Request); no or several Host headers: 400.</li>
 *   <li>A request with an {@code Origin} (a browser's) is refused (403) unless the origin was allowed
 *   ({@code --allowed-origin}); so is one whose {@code Sec-Fetch-Site} says another site sent it. CORS headers are
 *   sent only to an allowed origin, whose preflight {@code OPTIONS} is answered here.</li>
 *   <li>A body ({@code POST}, {@code PUT}, {@code PATCH}) must be {@code application/json} or
 *   {@code application/a2a+json} (parameters allowed), else 415: no "simple" cross-site request (form, text/plain)
 *   reaches a handler.</li>
 * </ol>
 * A server installs it on each of its contexts ({@code context.getFilters().add(guard)}).
 */
public final class HttpDoorGuard extends Filter {
    private static final List<String> LOOPBACK_NAMES = List.of("localhost", "127.0.0.1", "[::1]");
    private static final Set<String> JSON_TYPES = Set.of("application/json", "application/a2a+json");
    private static final Set<String> BODY_METHODS = Set.of("POST", "PUT", "PATCH");
    private static final String CORS_METHODS = "GET, HEAD, POST, DELETE, OPTIONS";
    private static final String CORS_HEADERS = "Authorization, Content-Type, Accept, A2A-Version, A2A-Extensions, X-A2A-Extensions";

    private final int port;
    private final boolean wildcard;
    private final Set<String> names = new LinkedHashSet<>();
    private final Set<String> allowedHosts;
    private final Set<String> allowedOrigins;

    /**
     * For a server bound to {@code bound}; {@code allowedHosts} are {@code NAME} (any port) or {@code NAME:PORT},
     * {@code allowedOrigins} are {@code scheme://host[:port]}. Throws IllegalArgumentException for a malformed one.
     */
    public HttpDoorGuard(InetSocketAddress bound, List<String> allowedHosts, List<String> allowedOrigins) {
        InetAddress address = bound.getAddress();
        this.port = bound.getPort();
        this.wildcard = address.isAnyLocalAddress();
        if (address.isLoopbackAddress() || wildcard) {
            for (String n : LOOPBACK_NAMES) {
                names.add(n);
                String canonical = canonicalLiteral(n);
                if (canonical != null) names.add(canonical);
            }
        }
        if (!wildcard) names.add(literal(address));
        Set<String> hosts = new LinkedHashSet<>();
        for (String h : allowedHosts) hosts.add(allowedHost(h));
        this.allowedHosts = Set.copyOf(hosts);
        Set<String> origins = new LinkedHashSet<>();
        for (String o : allowedOrigins) {
            String n = origin(o);
            if (n == null) throw new IllegalArgumentException("--allowed-origin " + o + " is not an origin: write scheme://host[:port], "
                    + "e.g. http://localhost:3000 (no path, no wildcard)");
            origins.add(n);
        }
        this.allowedOrigins = Set.copyOf(origins);
    }

    @Override
    public String description() { return "Host, Origin and Content-Type checks"; }

    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        Headers h = exchange.getRequestHeaders();
        List<String> host = h.get("Host");
        if (host == null || host.size() != 1) {
            refuse(exchange, 400, "a request needs exactly one Host header");
            return;
        }
        if (!hostAccepted(host.getFirst().strip())) {
            refuse(exchange, 421, "misdirected request: the Host header does not name this server (" + names() + "); "
                    + "behind a reverse proxy, start it with --allowed-host NAME");
            return;
        }
        List<String> origins = h.get("Origin");
        String origin = null;
        if (origins != null) {
            origin = origins.size() == 1 ? origin(origins.getFirst().strip()) : null;
            if (origin == null || !allowedOrigins.contains(origin)) {
                refuse(exchange, 403, "requests from web pages are refused (the request has an Origin header); "
                        + "to let the page at an origin call this server, start it with --allowed-origin ORIGIN");
                return;
            }
        } else {
            String site = h.getFirst("Sec-Fetch-Site");
            if (site != null && (site.equalsIgnoreCase("cross-site") || site.equalsIgnoreCase("same-site"))) {
                refuse(exchange, 403, "requests from web pages are refused (Sec-Fetch-Site: " + site.strip() + ")");
                return;
            }
        }
        String method = exchange.getRequestMethod();
        if (origin != null) {
            Headers out = exchange.getResponseHeaders();
            out.set("Access-Control-Allow-Origin", origin);
            out.add("Vary", "Origin");
            if (method.equals("OPTIONS") && h.containsKey("Access-Control-Request-Method")) {
                out.set("Access-Control-Allow-Methods", CORS_METHODS);
                out.set("Access-Control-Allow-Headers", CORS_HEADERS);
                out.set("Access-Control-Max-Age", "600");
                exchange.sendResponseHeaders(204, -1);
                exchange.close();
                return;
            }
        } else if (!allowedOrigins.isEmpty()) {
            exchange.getResponseHeaders().add("Vary", "Origin");
        }
        if (BODY_METHODS.contains(method) && !isJson(h.getFirst("Content-Type"))) {
            refuse(exchange, 415, "the request body must be JSON: Content-Type application/json or application/a2a+json");
            return;
        }
        chain.doFilter(exchange);
    }

    /** A plain-text answer (used by the handlers behind the guard too). */
    public static void plain(HttpExchange exchange, int status, String text) throws IOException {
        byte[] body = (text + "\n").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        exchange.sendResponseHeaders(status, exchange.getRequestMethod().equals("HEAD") ? -1 : body.length);
        if (!exchange.getRequestMethod().equals("HEAD")) exchange.getResponseBody().write(body);
    }

    private static void refuse(HttpExchange exchange, int status, String text) throws IOException {
        try (exchange) {
            plain(exchange, status, text);
        }
    }

    private String names() {
        if (wildcard) return "an address of this machine or localhost, port " + port;
        return (names.contains("localhost") ? String.join(", ", LOOPBACK_NAMES) : String.join(", ", names)) + " with port " + port;
    }

    /** Whether a Host header ({@code name[:port]}) names this server. */
    boolean hostAccepted(String value) {
        String name;
        String portPart;
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            if (close < 0) return false;
            name = value.substring(0, close + 1);
            portPart = value.substring(close + 1);
        } else {
            int colon = value.indexOf(':');
            name = colon < 0 ? value : value.substring(0, colon);
            portPart = colon < 0 ? "" : value.substring(colon);
        }
        if (!portPart.isEmpty() && !portPart.matches(":[0-9]{1,5}")) return false;
        name = name.toLowerCase(Locale.ROOT);
        if (name.isEmpty()) return false;
        int p = portPart.isEmpty() ? 80 : Integer.parseInt(portPart.substring(1));
        if (allowedHosts.contains(name) || allowedHosts.contains(name + portPart)) return true;
        if (p != port) return false;
        String canonical = canonicalLiteral(name);
        if (names.contains(name) || (canonical != null && names.contains(canonical))) return true;
        return wildcard && canonical != null && isThisMachine(canonical);
    }

    /** An address literal ({@code 1.2.3.4}, {@code [::1]}) in its canonical spelling; null for a name. */
    private static String canonicalLiteral(String name) {
        boolean v6 = name.startsWith("[") && name.endsWith("]") && name.substring(1, name.length() - 1).matches("[0-9a-f:.]+");
        boolean v4 = name.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
        if (!v4 && !v6) return null;
        try {
            return literal(InetAddress.getByName(v6 ? name.substring(1, name.length() - 1) : name)); // a literal: no DNS
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static boolean isThisMachine(String literal) {
        try {
            InetAddress a = InetAddress.getByName(literal.startsWith("[") ? literal.substring(1, literal.length() - 1) : literal);
            return a.isLoopbackAddress() || NetworkInterface.getByInetAddress(a) != null;
        } catch (UnknownHostException | SocketException e) {
            return false;
        }
    }

    private static String literal(InetAddress a) {
        String s = a.getHostAddress();
        int zone = s.indexOf('%');
        if (zone >= 0) s = s.substring(0, zone);
        return a instanceof Inet6Address ? "[" + s + "]" : s;
    }

    /** {@code --allowed-host} as compared: lower case, {@code NAME} or {@code NAME:PORT}. */
    private static String allowedHost(String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        if (!v.matches("(\\[[0-9a-f:.]+\\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?)(:[0-9]{1,5})?")) {
            throw new IllegalArgumentException("--allowed-host " + value + " is not a host name: write NAME or NAME:PORT, "
                    + "as clients write it in the Host header (e.g. agent.example.com or agent.example.com:8443)");
        }
        return v;
    }

    /** An origin as browsers write it ({@code scheme://host[:port]}, lower case, no default port); null if not one. */
    static String origin(String value) {
        try {
            URI u = new URI(value);
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null || u.getRawUserInfo() != null
                    || !(u.getRawPath() == null || u.getRawPath().isEmpty()) || u.getRawQuery() != null || u.getRawFragment() != null) {
                return null;
            }
            int p = u.getPort();
            boolean defaultPort = p == -1 || (scheme.equals("http") && p == 80) || (scheme.equals("https") && p == 443);
            return scheme + "://" + u.getHost().toLowerCase(Locale.ROOT) + (defaultPort ? "" : ":" + p);
        } catch (URISyntaxException e) {
            return null;
        }
    }

    private static boolean isJson(String contentType) {
        if (contentType == null) return false;
        int semicolon = contentType.indexOf(';');
        String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
        return JSON_TYPES.contains(type);
    }
}
