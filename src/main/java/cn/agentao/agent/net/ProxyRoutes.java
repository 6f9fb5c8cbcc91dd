package cn.agentao.agent.net;

import cn.agentao.agent.config.AgentConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which proxy a request takes, from the variables editors pass to agents: {@code https_proxy}/{@code HTTPS_PROXY}
 * for https URLs, {@code http_proxy}/{@code HTTP_PROXY} for http URLs, {@code all_proxy}/{@code ALL_PROXY} for
 * either when its own is unset (the lower-case spelling first, as curl reads them), except for the hosts in
 * {@code no_proxy}/{@code NO_PROXY} ({@link NoProxy}) and for this machine's loopback ({@code localhost},
 * {@code *.localhost}, {@code 127.0.0.0/8}, {@code ::1}), which a proxy elsewhere could not reach: local models
 * and MCP servers are always spoken to directly. Values that cannot be used are reported in {@link #problems()}.
 */
final class ProxyRoutes extends ProxySelector {
    private final ProxyAddress https;
    private final ProxyAddress http;
    private final NoProxy noProxy;
    private final String noProxyText;
    private final List<String> problems;

    private ProxyRoutes(ProxyAddress https, ProxyAddress http, NoProxy noProxy, String noProxyText, List<String> problems) {
        this.https = https;
        this.http = http;
        this.noProxy = noProxy;
        this.noProxyText = noProxyText;
        this.problems = List.copyOf(problems);
    }

    static ProxyRoutes from(AgentConfig.Proxies proxies) {
        List<String> problems = new ArrayList<>();
        ProxyAddress https = address(proxies.https(), problems);
        ProxyAddress http = address(proxies.http(), problems);
        AgentConfig.Variable noProxy = proxies.noProxy();
        return new ProxyRoutes(https, http, NoProxy.parse(noProxy == null ? null : noProxy.value()),
                noProxy == null ? "" : noProxy.value().strip(), problems);
    }

    /** The proxy the variable names; null (with a problem) when it is unusable. */
    private static ProxyAddress address(AgentConfig.Variable variable, List<String> problems) {
        if (variable == null) return null;
        try {
            return ProxyAddress.parse(variable.name(), variable.value());
        } catch (IllegalArgumentException e) {
            String problem = e.getMessage() + "; requests go without a proxy";
            if (!problems.contains(problem)) problems.add(problem);
            return null;
        }
    }

    /** The proxy a request to {@code uri} goes through, or empty for a direct connection. */
    Optional<ProxyAddress> proxyFor(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        ProxyAddress proxy = switch (scheme) {
            case "https", "wss" -> https;
            case "http", "ws" -> http;
            default -> null;
        };
        if (proxy == null) return Optional.empty();
        String host = uri.getHost();
        if (host == null || isLoopback(host)) return Optional.empty();
        int port = uri.getPort() >= 0 ? uri.getPort() : scheme.equals("https") || scheme.equals("wss") ? 443 : 80;
        return noProxy.matches(host, port) ? Optional.empty() : Optional.of(proxy);
    }

    static boolean isLoopback(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        while (h.endsWith(".")) h = h.substring(0, h.length() - 1);
        if (h.equals("localhost") || h.endsWith(".localhost")) return true;
        byte[] address = NoProxy.literal(h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h);
        if (address == null) return false;
        if (address.length == 4) return address[0] == 127;
        for (int i = 0; i < 15; i++) {
            if (address[i] != 0) return false;
        }
        return address[15] == 1;
    }

    @Override
    public List<Proxy> select(URI uri) {
        return proxyFor(uri)
                .map(p -> List.of(new Proxy(Proxy.Type.HTTP, InetSocketAddress.createUnresolved(p.host(), p.port()))))
                .orElse(List.of(Proxy.NO_PROXY));
    }

    @Override
    public void connectFailed(URI uri, SocketAddress proxy, IOException failure) {
        // nothing to fall back to: the failure reaches the caller
    }

    boolean any() {
        return https != null || http != null;
    }

    boolean anyCredentials() {
        return (https != null && https.hasCredentials()) || (http != null && http.hasCredentials());
    }

    List<String> problems() {
        return problems;
    }

    /** One line for the log: which proxies, from which variables, no credentials. */
    String describe() {
        if (!any()) return "no proxy";
        StringBuilder out = new StringBuilder();
        if (https != null) out.append("https via ").append(https).append(" (").append(https.variable()).append(")");
        if (http != null) out.append(out.isEmpty() ? "" : ", ").append("http via ").append(http).append(" (").append(http.variable()).append(")");
        out.append("; loopback").append(noProxyText.isEmpty() ? "" : " and " + noProxyText).append(" direct");
        return out.toString();
    }
}
