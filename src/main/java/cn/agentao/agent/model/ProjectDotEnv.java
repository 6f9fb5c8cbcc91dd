package cn.agentao.agent.model;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a project's own {@code .env} may set. A project's files never choose where a credential goes: until the
 * user trusts the project, its {@code .env} may not set {@code LLM_PROVIDER}, a key ({@code *_API_KEY}), an
 * endpoint ({@code *_BASE_URL}, {@code *_API_FORMAT}), any {@code AGENT_*} setting, proxies, CA certificates or
 * where the agent looks for things ({@code HOME}, {@code XDG_*}, {@code PATH}), and its {@code ${VAR}} references
 * are not expanded from the process environment (only from earlier lines of the same file). Everything else
 * (a model name, {@code LLM_TEMPERATURE}, …) applies. A trusted project's {@code .env} applies whole.
 */
final class ProjectDotEnv {
    private static final Set<String> REFUSED_NAMES = Set.of("LLM_PROVIDER", "HOME", "PATH", "NODE_EXTRA_CA_CERTS",
            "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "GIT_SSL_CAINFO");
    private static final List<String> REFUSED_SUFFIXES = List.of("_API_KEY", "_BASE_URL", "_API_FORMAT", "_PROXY",
            "_API_KEY_ENV", "_PASS_ENV");
    private static final List<String> REFUSED_PREFIXES = List.of("AGENT_", "XDG_", "SSL_CERT", "JAVA_TOOL", "_JAVA");

    /** The variables that apply, the names that were ignored, and the environment variables not expanded. */
    record Reading(Map<String, String> values, List<String> ignored, Set<String> unexpanded) {}

    private ProjectDotEnv() {}

    /** Whether an untrusted project's {@code .env} may not set {@code name}. */
    static boolean refused(String name) {
        String n = name.toUpperCase(Locale.ROOT);
        return REFUSED_NAMES.contains(n) || REFUSED_SUFFIXES.stream().anyMatch(n::endsWith)
                || REFUSED_PREFIXES.stream().anyMatch(n::startsWith);
    }

    static Reading read(Path file, boolean trusted, Map<String, String> processEnvironment) {
        if (trusted) return new Reading(DotEnv.read(file, processEnvironment::get), List.of(), Set.of());
        Set<String> unexpanded = new LinkedHashSet<>();
        Map<String, String> all = DotEnv.read(file, name -> {
            if (processEnvironment.containsKey(name)) unexpanded.add(name);
            return null;
        });
        Map<String, String> kept = new LinkedHashMap<>();
        List<String> ignored = new ArrayList<>();
        all.forEach((name, value) -> {
            if (refused(name)) ignored.add(name);
            else kept.put(name, value);
        });
        return new Reading(kept, List.copyOf(ignored), Set.copyOf(unexpanded));
    }

    /** The one sentence the session shows about an untrusted project's {@code .env}, or null when nothing was held back. */
    static String notice(Path file, Reading reading, Path trustFile) {
        if (reading.ignored().isEmpty() && reading.unexpanded().isEmpty()) return null;
        StringBuilder s = new StringBuilder(file.toString()).append(" belongs to a project you have not trusted, so ");
        if (!reading.ignored().isEmpty()) {
            s.append("its ").append(String.join(", ", reading.ignored())).append(reading.ignored().size() == 1 ? " was" : " were")
                    .append(" ignored (a project may not choose providers, keys, endpoints or agent settings)");
            if (!reading.unexpanded().isEmpty()) s.append(" and ");
        }
        if (!reading.unexpanded().isEmpty()) {
            s.append("references to your environment (")
                    .append(String.join(", ", reading.unexpanded().stream().sorted().map(n -> "${" + n + "}").toList()))
                    .append(") were not expanded");
        }
        return s.append(". To trust this project, run `agent trust ").append(file.getParent())
                .append("` or add it to ").append(trustFile).append('.').toString();
    }
}
