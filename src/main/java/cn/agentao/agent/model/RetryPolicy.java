package cn.agentao.agent.model;

import java.time.Duration;

/**
 * How often and how patiently a model call is retried after a rate limit, a server error or a lost connection,
 * which happens only while nothing has reached the listener yet. The n-th retry waits
 * {@code initialBackoff * 2^(n-1)}, or the server's {@code Retry-After} capped at {@code maxRetryAfter}.
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxRetryAfter) {

    /** Four attempts: waits of 0.5 s, 1 s and 2 s; {@code Retry-After} honoured up to 20 s. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(4, Duration.ofMillis(500), Duration.ofSeconds(20));

    public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, Duration.ZERO);

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
    }

    /** The wait before attempt {@code failedAttempts + 1}, given the server's {@code Retry-After} (nullable). */
    public Duration backoff(int failedAttempts, Duration retryAfter) {
        if (retryAfter != null) {
            return retryAfter.compareTo(maxRetryAfter) > 0 ? maxRetryAfter : retryAfter;
        }
        return initialBackoff.multipliedBy(1L << Math.min(failedAttempts - 1, 20));
    }
}
