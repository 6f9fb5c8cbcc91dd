package cn.agentao.agent.core.tool;

import cn.agentao.agent.core.content.ToolCallContent;

import java.util.List;

/**
 * Live output of a running call. Each call replaces the whole displayed content; callers throttle. Tools keep
 * what they pass bounded (e.g. the last 64 KiB of output with an "… N earlier characters omitted" line) and
 * never resend unbounded output.
 */
@FunctionalInterface
public interface ToolProgress {
    void show(List<ToolCallContent> wholeContent);

    ToolProgress NONE = content -> { };
}
