package cn.agentao.agent.sandbox;

import java.util.List;
import java.util.Locale;

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

    /** True for a failed command (non-zero exit) whose output carries one of the denial words. */
    public static boolean looksDenied(Integer exitCode, String output) {
        if (exitCode == null || exitCode == 0 || output == null) return false;
        String lower = output.toLowerCase(Locale.ROOT);
        for (String w : WORDS) if (lower.contains(w)) return true;
        return false;
    }
}
