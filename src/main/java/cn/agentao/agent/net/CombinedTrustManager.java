package cn.agentao.agent.net;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Trusts a server when the JDK's trust manager does, or else when the one holding the extra CAs does. Both are the
 * JDK's own PKIX managers, so each check (host name included) is theirs; this only asks the second when the first says
 * no, and reports the first one's reason when both do. Keeps the JDK's CAs where the JDK loaded them instead of
 * copying them into a new store.
 */
final class CombinedTrustManager extends X509ExtendedTrustManager {
    @FunctionalInterface
    private interface Check {
        void run(X509ExtendedTrustManager manager) throws CertificateException;
    }

    private final X509ExtendedTrustManager jdk;
    private final X509ExtendedTrustManager extra;

    CombinedTrustManager(X509ExtendedTrustManager jdk, X509ExtendedTrustManager extra) {
        this.jdk = jdk;
        this.extra = extra;
    }

    private void either(Check check) throws CertificateException {
        try {
            check.run(jdk);
        } catch (CertificateException first) {
            try {
                check.run(extra);
            } catch (CertificateException second) {
                first.addSuppressed(second);
                throw first;
            }
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        either(m -> m.checkServerTrusted(chain, authType, engine));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        either(m -> m.checkServerTrusted(chain, authType, socket));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        either(m -> m.checkServerTrusted(chain, authType));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        either(m -> m.checkClientTrusted(chain, authType, engine));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        either(m -> m.checkClientTrusted(chain, authType, socket));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        either(m -> m.checkClientTrusted(chain, authType));
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        List<X509Certificate> all = new ArrayList<>(List.of(jdk.getAcceptedIssuers()));
        all.addAll(List.of(extra.getAcceptedIssuers()));
        return all.toArray(new X509Certificate[0]);
    }
}
