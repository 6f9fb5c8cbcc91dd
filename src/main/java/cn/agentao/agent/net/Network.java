package cn.agentao.agent.net;

import cn.agentao.agent.config.AgentConfig;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.X509TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place outgoing HTTP is set up for the model provider, MCP servers over http/sse, {@code web_fetch} and
 * the A2C-SMCP office's Socket.IO connection:
 * the proxy each request takes ({@link ProxyRoutes}: {@code HTTPS_PROXY}, {@code HTTP_PROXY}, {@code NO_PROXY})
 * with its credentials, and the certificate authorities TLS trusts ({@link TrustedCertificates}: the JDK's, the
 * system bundle, {@code SSL_CERT_FILE}, {@code SSL_CERT_DIR}).
 *
 * <p>Read from the agent's own process environment only, never from a project's {@code .env}: a repository must not
 * be able to route traffic (and API keys) through a proxy of its choosing, or make the agent trust its CA. The proxy
 * settings are read on first use (cheap); the TLS context is built only when a client that speaks TLS is built, so
 * nothing TLS-related happens before a session needs it.
 */
public final class Network {
    private static final Logger LOG = LoggerFactory.getLogger(Network.class);
    private static volatile Network instance;

    private final AgentConfig.Network settings;
    private final List<Path> systemBundles;
    private final ProxyRoutes routes;
    private volatile TrustedCertificates trust;

    Network(AgentConfig.Network settings, List<Path> systemBundles) {
        this.settings = settings;
        this.systemBundles = List.copyOf(systemBundles);
        this.routes = ProxyRoutes.from(settings.proxies());
        if (routes.anyCredentials()) allowBasicProxyAuthorizationInTunnels();
    }

    /** The process-wide settings, from the process environment (the config's network section). */
    public static Network get() {
        Network n = instance;
        if (n == null) {
            synchronized (Network.class) {
                n = instance;
                if (n == null) {
                    n = new Network(AgentConfig.Network.ofThisProcess(), TrustedCertificates.SYSTEM_BUNDLES);
                    LOG.debug("network: {}", n.routes.describe());
                    n.routes.problems().forEach(p -> LOG.warn("network: {}", p));
                    instance = n;
                }
            }
        }
        return n;
    }

    /**
     * The JDK sends a {@code Proxy-Authorization: Basic} header with a CONNECT only when this property allows it (it
     * is read once, when its first HTTP client is built). The user named these credentials for this proxy, so they
     * go to it, and only to it: the JDK strips {@code Proxy-*} headers from direct and tunnelled requests.
     */
    private static void allowBasicProxyAuthorizationInTunnels() {
        if (System.getProperty("jdk.http.auth.tunneling.disabledSchemes") == null) {
            System.setProperty("jdk.http.auth.tunneling.disabledSchemes", "");
        }
    }

    public ProxySelector proxySelector() {
        return routes;
    }

    /** Whether a request to {@code uri} goes through a proxy. */
    public boolean proxied(URI uri) {
        return routes.proxyFor(uri).isPresent();
    }

    /** {@code " through the proxy http://host:port from HTTPS_PROXY"} when {@code uri} is proxied, else empty; no credentials. */
    public String via(URI uri) {
        return routes.proxyFor(uri).map(p -> " through the proxy " + p + " from " + p.variable()).orElse("");
    }

    /** The TLS context trusting the JDK's CAs and the extra ones; built on first call. */
    public SSLContext sslContext() {
        return trust().context();
    }

    /** The trust manager behind {@link #sslContext()}, for clients that take both (OkHttp, under Socket.IO). */
    public X509TrustManager trustManager() {
        return trust().trustManager();
    }

    private TrustedCertificates trust() {
        TrustedCertificates t = trust;
        if (t == null) {
            synchronized (this) {
                t = trust;
                if (t == null) {
                    t = TrustedCertificates.load(settings.certificates(), systemBundles);
                    LOG.debug("TLS: {} certificate authorities trusted besides the JDK's", t.added());
                    t.problems().forEach(p -> LOG.warn("TLS: {}", p));
                    trust = t;
                }
            }
        }
        return t;
    }

    /**
     * Sets the proxy selector and the TLS context trusting the extra CAs on a client being built; built now when
     * {@code tls}, else only if the client ever meets TLS ({@link DeferredTls}): a plain-HTTP client costs no TLS set-up.
     */
    public HttpClient.Builder configure(HttpClient.Builder builder, boolean tls) {
        builder.proxy(routes);
        if (tls) {
            builder.sslContext(sslContext());
        } else {
            builder.sslContext(DeferredTls.context(this::sslContext)).sslParameters(DeferredTls.parameters());
        }
        return builder;
    }

    /**
     * Adds {@code Proxy-Authorization} to a request for {@code target} when it goes through a proxy with credentials
     * (sent at once, as curl does, rather than after a 407).
     */
    public HttpRequest.Builder authorize(HttpRequest.Builder request, URI target) {
        proxyAuthorization(target).ifPresent(a -> request.setHeader("Proxy-Authorization", a));
        return request;
    }

    /** The {@code Proxy-Authorization} value for the proxy a request to {@code target} goes through, if it has credentials. */
    public Optional<String> proxyAuthorization(URI target) {
        return routes.proxyFor(target).map(ProxyAddress::authorization);
    }

    /** What could not be used (bad proxy URLs, unreadable certificate files), in words for the user. */
    public List<String> problems() {
        List<String> out = new ArrayList<>(routes.problems());
        TrustedCertificates t = trust;
        if (t != null) out.addAll(t.problems());
        return out;
    }
}
