package cn.agentao.agent.model;

/**
 * What a model costs per million tokens, from {@code config.json}'s {@code prices}: input, output and (when the
 * provider bills them apart) cached input; {@code currency} an ISO 4217 code such as {@code USD}.
 */
public record ModelPrice(double input, double output, Double cachedInput, String currency) {
    /** The cost of one call: cached input tokens at the cached price (the input price when none is set). */
    public double cost(TokenCount usage) {
        long cached = Math.min(usage.cachedInput(), usage.input());
        double cachedPrice = cachedInput != null ? cachedInput : input;
        return ((usage.input() - cached) * input + cached * cachedPrice + (double) usage.output() * output) / 1_000_000d;
    }
}
