package cn.agentao.agent.door.acp.protocol;

import java.util.List;

public record SessionMode(String id, String name, String description) {
    public record State(String currentModeId, List<SessionMode> availableModes) {}
}
