package cn.agentao.agent.model;

import java.time.Duration;

/**
 * Per-client settings. {@code temperature} and {@code maxTokens} are sent only when set (reasoning models reject
 * a temperature); {@code idleTimeout} bounds the wait for the first and every following streamed event.
 */
public record ModelOptions(
        Double temperature, Integer maxTokens, Duration connectTimeout, Duration idleTimeout, RetryPolicy retry) {

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(120);

    public static ModelOptions defaults() {
        return new ModelOptions(null, null, DEFAULT_CONNECT_TIMEOUT, DEFAULT_IDLE_TIMEOUT, RetryPolicy.DEFAULT);
    }

    public ModelOptions withTemperature(Double value) {
        return new ModelOptions(value, maxTokens, connectTimeout, idleTimeout, retry);
    }

    public ModelOptions withMaxTokens(Integer value) {
        return new ModelOptions(temperature, value, connectTimeout, idleTimeout, retry);
    }

    public ModelOptions withConnectTimeout(Duration value) {
        return new ModelOptions(temperature, maxTokens, value, idleTimeout, retry);
    }

    public ModelOptions withIdleTimeout(Duration value) {
        return new ModelOptions(temperature, maxTokens, connectTimeout, value, retry);
    }

    public ModelOptions withRetry(RetryPolicy value) {
        return new ModelOptions(temperature, maxTokens, connectTimeout, idleTimeout, value);
    }
}
