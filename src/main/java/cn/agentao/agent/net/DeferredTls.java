package cn.agentao.agent.net;

import java.security.KeyManagementException;
import java.security.SecureRandom;
import java.util.function.Supplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * The TLS context of a client built for plain HTTP (a local model server, an {@code http://} A2A agent): it builds
 * the real one ({@link Network#sslContext()}, the JDK's CAs and the extra ones) only if the client ever speaks TLS.
 * Without it {@code HttpClient.build()} calls {@code SSLContext.getDefault()}, which parses the JDK's ~150 CA
 * certificates and loads ~400 classes: about a third of a fresh process's first prompt against a local model and,
 * through the AOT cache that holds (and loads at every start) every class its training loaded, ~3.5 MB of every
 * process's memory.
 */
final class DeferredTls extends SSLContextSpi {
    private final Supplier<SSLContext> real;

    private DeferredTls(Supplier<SSLContext> real) {
        this.real = real;
    }

    static SSLContext context(Supplier<SSLContext> real) {
        return new SSLContext(new DeferredTls(real), null, "TLS") {};
    }

    /**
     * Handed to the client with the context, so that building it does not ask the context for its defaults; left
     * empty, each TLS engine keeps the real context's defaults (protocols, cipher suites).
     */
    static SSLParameters parameters() {
        return new SSLParameters();
    }

    @Override
    protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom random) throws KeyManagementException {
        throw new KeyManagementException("already initialised");
    }

    @Override
    protected SSLSocketFactory engineGetSocketFactory() {
        return real.get().getSocketFactory();
    }

    @Override
    protected SSLServerSocketFactory engineGetServerSocketFactory() {
        return real.get().getServerSocketFactory();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine() {
        return real.get().createSSLEngine();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine(String host, int port) {
        return real.get().createSSLEngine(host, port);
    }

    @Override
    protected SSLSessionContext engineGetServerSessionContext() {
        return real.get().getServerSessionContext();
    }

    @Override
    protected SSLSessionContext engineGetClientSessionContext() {
        return real.get().getClientSessionContext();
    }

    @Override
    protected SSLParameters engineGetDefaultSSLParameters() {
        return real.get().getDefaultSSLParameters();
    }

    @Override
    protected SSLParameters engineGetSupportedSSLParameters() {
        return real.get().getSupportedSSLParameters();
    }
}
