package cn.agentao.agent.protocol;

/** priority: high|medium|low; status: pending|in_progress|completed. */
public record PlanEntry(String content, String priority, String status) {}
