package cn.agentao.agent.net;

import java.io.IOException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateExpiredException;
import javax.net.ssl.SSLException;

/** TLS and proxy failures in words a user can act on. */
public final class NetworkFailures {
    private NetworkFailures() {}

    /** A short reason when {@code failure} is (caused by) a TLS or proxy failure, else null. */
    public static String describe(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SSLException ssl) return tls(ssl);
            if (t instanceof IOException && t.getMessage() != null && t.getMessage().startsWith("Tunnel failed, got: ")) {
                return "the proxy refused to open a tunnel (HTTP " + t.getMessage().substring(20).strip() + ")";
            }
        }
        return null;
    }

    private static String tls(SSLException ssl) {
        for (Throwable t = ssl; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = String.valueOf(t.getMessage());
            if (t instanceof CertPathBuilderException || m.contains("PKIX path building failed")) {
                return "its TLS certificate is not signed by a trusted authority (a corporate CA can be added with "
                        + "SSL_CERT_FILE or SSL_CERT_DIR)";
            }
            if (m.contains("No subject alternative") || m.contains("No name matching")) {
                return "its TLS certificate is for another host name";
            }
            if (t instanceof CertificateExpiredException) return "its TLS certificate has expired";
        }
        return "the TLS handshake failed (" + ssl.getMessage() + ")";
    }

    /** The sentence for an HTTP 407 answer. */
    public static String proxyAuthenticationRequired() {
        return "the proxy asks for credentials (HTTP 407): give them in the proxy variable, "
                + "http://user:password@host:port (percent-encode special characters)";
    }
}
