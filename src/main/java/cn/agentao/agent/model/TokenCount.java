package cn.agentao.agent.model;

/**
 * Tokens used by one call, as reported by the provider: {@code input} counts every prompt token, the
 * {@code cachedInput} ones (read from the provider's prompt cache) included; {@code total} is input plus output.
 */
public record TokenCount(int input, int output, int total, int cachedInput) {
    public TokenCount(int input, int output, int total) {
        this(input, output, total, 0);
    }
}
