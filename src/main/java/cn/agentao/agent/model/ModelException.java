package cn.agentao.agent.model;

/**
 * A failed or cancelled model call. {@link #userMessage()} (also the exception message) is written for the user
 * and never contains an API key.
 */
public final class ModelException extends Exception {

    public enum Kind {
        /** HTTP 401/403: the key was rejected. */
        AUTH,
        /** HTTP 404: no such model (or wrong base URL). */
        MODEL_NOT_FOUND,
        /** HTTP 429. */
        RATE_LIMITED,
        /** HTTP 5xx or a server error event. */
        SERVER,
        /** No connection, or no streamed event, within the configured time. */
        TIMEOUT,
        /** Connection refused, reset or dropped mid-stream. */
        CONNECTION,
        /** The caller cancelled. */
        CANCELLED,
        /** Anything else, e.g. HTTP 400 for a request the provider does not accept. */
        OTHER
    }

    private final Kind kind;
    private final int httpStatus;
    private final boolean retryable;

    /**
     * @param httpStatus the provider's HTTP status, or 0
     * @param retryable  whether trying again (before any output was shown) may help
     * @param cause      the underlying failure; must not carry the API key in its message
     */
    public ModelException(Kind kind, String userMessage, int httpStatus, boolean retryable, Throwable cause) {
        super(userMessage, cause);
        this.kind = kind;
        this.httpStatus = httpStatus;
        this.retryable = retryable;
    }

    public ModelException(Kind kind, String userMessage) {
        this(kind, userMessage, 0, false, null);
    }

    public Kind kind() {
        return kind;
    }

    /** The HTTP status the provider answered with, or 0 when the failure was not an HTTP error. */
    public int httpStatus() {
        return httpStatus;
    }

    public String userMessage() {
        return getMessage();
    }

    /** Whether trying again (before any output was shown) may help: rate limits, server errors, lost connections. */
    public boolean retryable() {
        return retryable;
    }
}
