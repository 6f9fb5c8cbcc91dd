package cn.agentao.agent.door.agora;

import java.util.regex.Pattern;

/** Whether a text mentions {@code @ID} as a whole word, in any case ({@code @bot} is not in {@code @bot-2}). */
final class Mentions {
    private final Pattern pattern;

    Mentions(String agentId) {
        this.pattern = Pattern.compile("(?<![\\w@.-])@" + Pattern.quote(agentId) + "(?![\\w-]|\\.\\w)",
                Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    }

    boolean in(String text) {
        return text != null && pattern.matcher(text).find();
    }
}
