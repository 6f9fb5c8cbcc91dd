package cn.agentao.agent.net;

import java.security.KeyManagementException;
import java.security.SecureRandom;
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
 * The TLS settings of a client that only ever speaks plain HTTP (a local model server, an {@code http://} MCP server):
 * a context that refuses every TLS use, so building the client does not set up the JDK's default TLS context.
 * Without it {@code HttpClient.build()} calls {@code SSLContext.getDefault()}, which parses the JDK's ~150 CA
 * certificates and loads ~400 classes: about 100 ms of a fresh process's first prompt against a local model,
 * and, through the AOT cache that holds every class its training loaded, ~3 MB of every process's memory.
 * Such a client never follows redirects to https and reaches an http proxy in plain text, so nothing asks for TLS;
 * if something did, it would fail clearly instead of silently trusting the JDK's defaults.
 */
final class PlainHttpOnly extends SSLContextSpi {
    static final SSLContext CONTEXT = new SSLContext(new PlainHttpOnly(), null, "TLS") {};

    /** Handed to the client so it need not ask the context for its defaults. */
    static SSLParameters parameters() {
        return new SSLParameters();
    }

    private PlainHttpOnly() {}

    private static UnsupportedOperationException refused() {
        return new UnsupportedOperationException("this HTTP client was set up for plain http:// only; TLS is not available to it");
    }

    @Override
    protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom random) throws KeyManagementException {
        throw new KeyManagementException(refused());
    }

    @Override
    protected SSLSocketFactory engineGetSocketFactory() {
        throw refused();
    }

    @Override
    protected SSLServerSocketFactory engineGetServerSocketFactory() {
        throw refused();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine() {
        throw refused();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine(String host, int port) {
        throw refused();
    }

    @Override
    protected SSLSessionContext engineGetServerSessionContext() {
        throw refused();
    }

    @Override
    protected SSLSessionContext engineGetClientSessionContext() {
        throw refused();
    }
}
