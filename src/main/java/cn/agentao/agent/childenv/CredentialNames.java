package cn.agentao.agent.childenv;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Whether a variable's name says it holds a credential. The name is split on {@code _} into words (case does
 * not matter) and is a credential when:
 * <ul>
 *   <li>a word ends with {@code TOKEN}, {@code SECRET}, {@code PASSWORD}, {@code PASSWD}, {@code PASSPHRASE},
 *       {@code CREDENTIAL(S)} or {@code APIKEY} ({@code GITHUB_TOKEN}, {@code PGPASSWORD},
 *       {@code AWS_SECRET_ACCESS_KEY}, {@code npm_config__authToken}, {@code GOOGLE_APPLICATION_CREDENTIALS});</li>
 *   <li>{@code API}, {@code ACCESS} or {@code PRIVATE} is followed by the word {@code KEY}
 *       ({@code OPENAI_API_KEY}, {@code AWS_ACCESS_KEY_ID});</li>
 *   <li>the last of two or more words is {@code KEY}, {@code PAT}, {@code PWD} or ends with {@code AUTH}
 *       ({@code STRIPE_KEY}, {@code GITHUB_PAT}, {@code MYSQL_PWD}, {@code NPM_CONFIG__AUTH}).</li>
 * </ul>
 * Ordinary names stay ordinary: {@code TOKENIZERS_PARALLELISM}, {@code SSH_AUTH_SOCK}, {@code PWD},
 * {@code KEYTIMEOUT}. A variable the command line names for a secret of the process's own (a server's token:
 * {@code a2a serve --token-env}, {@code agora --token-env}; the session store's password: {@code --store-password-env})
 * is {@link #declare declared} a credential whatever its name.
 */
public final class CredentialNames {
    private static final List<String> WORD_ENDINGS =
            List.of("TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "CREDENTIALS", "APIKEY");
    private static final Set<String> BEFORE_KEY = Set.of("API", "ACCESS", "PRIVATE");
    private static final Set<String> LAST_WORDS = Set.of("KEY", "PAT", "PWD");

    private static final Set<String> DECLARED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private CredentialNames() {}

    /**
     * Makes {@code name} a credential for the rest of the process, whatever it is called: the variable holding the
     * token a server of this process checks. It never reaches a child process, even when {@code passEnv} names it.
     */
    public static void declare(String name) {
        if (name != null && !name.isEmpty()) DECLARED.add(name);
    }

    /** Whether {@link #declare} made {@code name} a credential. */
    public static boolean isDeclared(String name) {
        return name != null && DECLARED.contains(name);
    }

    public static boolean isCredential(String name) {
        if (name == null || name.isEmpty()) return false;
        if (DECLARED.contains(name)) return true;
        String previous = null;
        String last = null;
        int count = 0;
        for (String w : name.toUpperCase(Locale.ROOT).split("_")) {
            if (w.isEmpty()) continue;
            for (String ending : WORD_ENDINGS) if (w.endsWith(ending)) return true;
            if (w.equals("KEY") && previous != null && BEFORE_KEY.contains(previous)) return true;
            previous = w;
            last = w;
            count++;
        }
        return count >= 2 && (LAST_WORDS.contains(last) || last.endsWith("AUTH"));
    }
}
