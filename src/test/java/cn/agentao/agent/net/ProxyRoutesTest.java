package cn.agentao.agent.net;

import cn.agentao.agent.config.AgentConfig;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.*;

/** Which proxy each request takes, from the variables editors pass; what is wrong with a bad value, without secrets. */
class ProxyRoutesTest {

    private static Optional<ProxyAddress> route(Map<String, String> env, String url) {
        return ProxyRoutes.from(AgentConfig.Proxies.from(env)).proxyFor(URI.create(url));
    }

    @Test
    void httpsAndHttpEachTakeTheirOwnVariable() {
        Map<String, String> env = Map.of("HTTPS_PROXY", "http://secure-proxy:3128", "HTTP_PROXY", "http://plain-proxy:8080");
        assertEquals("secure-proxy", route(env, "https://api.openai.com/v1").orElseThrow().host());
        assertEquals(3128, route(env, "https://api.openai.com/v1").orElseThrow().port());
        assertEquals("plain-proxy", route(env, "http://example.com/").orElseThrow().host());
        assertTrue(route(Map.of("HTTP_PROXY", "http://p:1"), "https://example.com/").isEmpty(),
                "like curl, HTTP_PROXY is not used for https");
    }

    @Test
    void lowerCaseWinsAndAllProxyIsTheFallback() {
        assertEquals("lower", route(Map.of("https_proxy", "lower:1", "HTTPS_PROXY", "upper:2"), "https://x.org").orElseThrow().host());
        assertEquals("upper", route(Map.of("https_proxy", " ", "HTTPS_PROXY", "upper:2"), "https://x.org").orElseThrow().host(),
                "a blank value counts as unset");
        assertEquals("all", route(Map.of("ALL_PROXY", "http://all:3"), "https://x.org").orElseThrow().host());
        assertEquals("own", route(Map.of("ALL_PROXY", "http://all:3", "HTTP_PROXY", "own:4"), "http://x.org").orElseThrow().host());
    }

    @Test
    void schemeAndPortDefaultLikeAnHttpUrl() {
        ProxyAddress p = route(Map.of("HTTPS_PROXY", "proxy.corp.example"), "https://x.org").orElseThrow();
        assertEquals("proxy.corp.example", p.host());
        assertEquals(80, p.port());
        assertNull(p.authorization());
    }

    @Test
    void loopbackIsAlwaysDirect() {
        Map<String, String> env = Map.of("HTTPS_PROXY", "http://p:1", "HTTP_PROXY", "http://p:1");
        for (String url : List.of("http://localhost:11434/v1", "http://LOCALHOST./", "https://model.localhost/v1",
                "http://127.0.0.1:8000/v1", "http://127.5.6.7/", "http://[::1]:8080/", "https://[0:0:0:0:0:0:0:1]/")) {
            assertTrue(route(env, url).isEmpty(), url);
        }
        for (String url : List.of("http://10.0.0.5/", "https://localhost.example.com/", "https://[::2]/", "http://128.0.0.1/")) {
            assertTrue(route(env, url).isPresent(), url);
        }
    }

    @Test
    void noProxyHostsGoDirectAndOthersDoNot() {
        Map<String, String> env = Map.of("HTTPS_PROXY", "http://p:1", "no_proxy", ".internal.example,10.0.0.0/8",
                "NO_PROXY", "ignored-because-lower-case-is-set.example");
        assertTrue(route(env, "https://git.internal.example/x").isEmpty());
        assertTrue(route(env, "https://10.9.9.9/").isEmpty());
        assertTrue(route(env, "https://ignored-because-lower-case-is-set.example/").isPresent());
        assertTrue(route(env, "https://api.anthropic.com/v1").isPresent());
    }

    @Test
    void theSelectorGivesTheJdkAnHttpProxyOrNone() {
        ProxyRoutes routes = ProxyRoutes.from(AgentConfig.Proxies.from(Map.of("HTTPS_PROXY", "http://p.example:3128")));
        List<Proxy> proxied = routes.select(URI.create("https://api.openai.com/v1/chat/completions"));
        assertEquals(Proxy.Type.HTTP, proxied.get(0).type());
        assertEquals(3128, ((InetSocketAddress) proxied.get(0).address()).getPort());
        assertEquals(List.of(Proxy.NO_PROXY), routes.select(URI.create("http://127.0.0.1:1/")));
        assertEquals(List.of(Proxy.NO_PROXY), ProxyRoutes.from(AgentConfig.Proxies.from(Map.of())).select(URI.create("https://x.org/")));
    }

    @Test
    void credentialsBecomeBasicProxyAuthorizationAndAreNeverShown() {
        ProxyAddress p = ProxyAddress.parse("HTTPS_PROXY", "http://alice%40corp:p%3Ass%20w@proxy:3128");
        assertEquals("Basic " + Base64.getEncoder().encodeToString("alice@corp:p:ss w".getBytes()), p.authorization());
        assertFalse(p.toString().contains("alice") || p.toString().contains("ss"), p.toString());
        ProxyRoutes routes = ProxyRoutes.from(AgentConfig.Proxies.from(Map.of("HTTPS_PROXY", "http://alice:hunter22@proxy:3128")));
        assertFalse(routes.describe().contains("hunter22") || routes.describe().contains("alice"), routes.describe());
    }

    @Test
    void authorizationIsAddedOnlyToProxiedRequests() {
        Network network = new Network(AgentConfig.Network.from(Map.of("HTTPS_PROXY", "http://alice:hunter22@proxy:3128", "NO_PROXY", "direct.example")), List.of());
        assertTrue(authorization(network, "https://api.openai.com/v1").orElseThrow().startsWith("Basic "));
        assertTrue(authorization(network, "https://direct.example/").isEmpty());
        assertTrue(authorization(network, "http://localhost:11434/").isEmpty());
        assertTrue(authorization(network, "http://api.example/").isEmpty(), "no HTTP_PROXY: http goes direct");
        Network anonymous = new Network(AgentConfig.Network.from(Map.of("HTTPS_PROXY", "http://proxy:3128")), List.of());
        assertTrue(authorization(anonymous, "https://api.openai.com/v1").isEmpty());
    }

    private static Optional<String> authorization(Network network, String url) {
        URI uri = URI.create(url);
        return network.authorize(HttpRequest.newBuilder(uri), uri).build().headers().firstValue("Proxy-Authorization");
    }

    @Test
    void unusableValuesAreReportedWithoutTheirCredentials() {
        ProxyRoutes routes = ProxyRoutes.from(AgentConfig.Proxies.from(Map.of("HTTPS_PROXY", "socks5://bob:topsecret@proxy:1080",
                "HTTP_PROXY", "https://bob:topsecret@proxy:443", "ALL_PROXY", "ftp://x")));
        assertFalse(routes.any());
        assertEquals(2, routes.problems().size(), routes.problems().toString());
        String all = String.join("\n", routes.problems());
        assertTrue(all.contains("HTTPS_PROXY") && all.contains("SOCKS"), all);
        assertTrue(all.contains("HTTP_PROXY") && all.contains("TLS"), all);
        assertFalse(all.contains("topsecret") || all.contains("bob"), all);
        assertTrue(route(Map.of("HTTPS_PROXY", "http://"), "https://x.org").isEmpty());
        assertTrue(ProxyRoutes.from(AgentConfig.Proxies.from(Map.of("HTTPS_PROXY", "http://"))).problems().get(0).contains("is not a proxy URL"));
        assertTrue(ProxyRoutes.from(AgentConfig.Proxies.from(Map.of("HTTPS_PROXY", "http://:8080"))).problems().get(0).contains("no proxy host"));
        assertTrue(ProxyRoutes.from(AgentConfig.Proxies.from(Map.of("HTTPS_PROXY", "http://u:p w@host:1"))).problems().get(0).contains("***@"),
                "an unparseable value is shown with its credentials masked");
    }
}
