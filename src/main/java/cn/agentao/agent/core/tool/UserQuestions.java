package cn.agentao.agent.core.tool;

import java.util.List;
import java.util.Optional;

/** Asks the user a free-text question in the middle of a turn. */
@FunctionalInterface
public interface UserQuestions {
    /**
     * Blocks until the user answers. Empty when nobody can answer: the client cannot ask, the user cancelled,
     * or the request failed.
     *
     * @param options suggested answers (may be empty); the user may still answer freely
     */
    Optional<String> ask(String question, List<String> options) throws InterruptedException;

    UserQuestions UNAVAILABLE = (question, options) -> Optional.empty();
}
