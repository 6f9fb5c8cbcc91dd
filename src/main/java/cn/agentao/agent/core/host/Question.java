package cn.agentao.agent.core.host;

import java.util.List;

/** A free-text question for the user; {@code options} are suggested answers (may be empty), any text may answer. */
public record Question(String text, List<String> options) {
    public Question {
        options = options == null ? List.of() : List.copyOf(options);
    }
}
