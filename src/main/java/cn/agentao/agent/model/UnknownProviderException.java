package cn.agentao.agent.model;

public final class UnknownProviderException extends Exception {
    public UnknownProviderException(String providerId) {
        super("cannot resolve provider '" + providerId + "'");
    }
}
