package cn.agentao.agent.sandbox;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a command that failed inside the sandbox probably failed for lack of access (a write outside the
 * writable roots, the network) rather than for its own reasons: the operating system's words for it in the
 * output. A guess, as in other agents; a wrong "yes" only costs the user a question.
 */
public final class SandboxDenials {
    private static final List<String> WORDS = List.of(
            "read-only file system", "permission denied", "operation not permitted", "device or resource busy",
            "network is unreachable", "could not resolve host", "temporary failure in name resolution",
            "name or service not known", "no address associated with hostname", "couldn't connect to server",
            "failed to connect", "connection refused", "could not resolve", "getaddrinfo");

    private SandboxDenials() {}

    /**
     * True for a failed command (non-zero exit) whose output carries one of the denial words, or says "No such file
     * or directory" of a path the sandbox hides whose parent exists on this machine (the sandbox hid it:
     * {@code ~/other/x}, {@code /srv/data/x}), or "Not a directory" of a protected name (masked while missing).
     */
    public static boolean looksDenied(Integer exitCode, String output, Predicate<Path> hidden) {
        if (exitCode == null || exitCode == 0 || output == null) return false;
        String lower = output.toLowerCase(Locale.ROOT);
        for (String w : WORDS) if (lower.contains(w)) return true;
        for (String line : output.split("\n")) {
            String l = line.toLowerCase(Locale.ROOT);
            if (l.contains("not a directory") && SandboxPolicy.PROTECTED_NAMES.stream().anyMatch(line::contains)) {
                return true; // a missing protected name is masked by a file: `git init` meets it
            }
            if (!l.contains("no such file or directory")) continue;
            Matcher m = PATH.matcher(line);
            while (m.find()) if (hiddenHere(Path.of(m.group()), hidden)) return true;
        }
        return false;
    }

    /**
     * The paths of this machine a failed command could not read because the sandbox hides them: those named on a
     * "No such file or directory" line that are hidden under the policy and do exist here (a file or a directory),
     * in the order met, each once. Empty for a command that succeeded.
     */
    public static List<Path> hiddenReads(Integer exitCode, String output, Predicate<Path> hidden) {
        if (exitCode == null || exitCode == 0 || output == null) return List.of();
        java.util.LinkedHashSet<Path> out = new java.util.LinkedHashSet<>();
        for (String line : output.split("\n")) {
            if (!line.toLowerCase(Locale.ROOT).contains("no such file or directory")) continue;
            Matcher m = PATH.matcher(line);
            while (m.find()) {
                Path p = Path.of(m.group()).normalize();
                if (hiddenHere(p, hidden) && Files.exists(p)) out.add(p);
            }
        }
        return List.copyOf(out);
    }

    private static final Pattern PATH = Pattern.compile("/[^\\s:'\"`]+");

    private static boolean hiddenHere(Path p, Predicate<Path> hidden) {
        Path parent = p.normalize().getParent();
        return parent != null && parent.getParent() != null && hidden.test(p.normalize()) && Files.isDirectory(parent);
    }
}
