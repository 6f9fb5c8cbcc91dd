package cn.agentao.agent.util;

/**
 * The one place that replaces known secret values by {@code ***} in text meant for the user, the model, a child
 * or the store. Callers choose which values count (and whether to strip them); this only does the replacing.
 */
public final class SecretMask {
    public static final String MASK = "***";

    private SecretMask() {}

    /**
     * {@code text} with every secret of at least {@code minLength} characters replaced by {@value #MASK}; null
     * secrets are skipped, a null or empty text is returned as it is.
     */
    public static String mask(String text, Iterable<String> secrets, int minLength) {
        if (text == null || text.isEmpty()) return text;
        String out = text;
        for (String secret : secrets) {
            if (secret != null && !secret.isEmpty() && secret.length() >= minLength) out = out.replace(secret, MASK);
        }
        return out;
    }
}
