package cn.agentao.agent.core.content;

/** priority: high|medium|low; status: pending|in_progress|completed. */
public record PlanEntry(String content, String priority, String status) {}
