package cn.agentao.agent.model;

/** Tokens used by one call, as reported by the provider. */
public record TokenCount(int input, int output, int total) {}
