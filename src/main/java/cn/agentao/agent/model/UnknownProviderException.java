package cn.agentao.agent.model;

/** A provider id that names no usable provider (unknown, or lacking its key or endpoint). */
public final class UnknownProviderException extends RuntimeException {
    private final String providerId;

    public UnknownProviderException(String providerId) {
        super("cannot resolve provider '" + providerId + "'");
        this.providerId = providerId;
    }

    public String providerId() {
        return providerId;
    }
}
