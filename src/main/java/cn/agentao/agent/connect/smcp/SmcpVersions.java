package cn.agentao.agent.connect.smcp;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The A2C-SMCP protocol versions the agent speaks, newest first, and how it picks one a server accepts. 0.x versions
 * are compatible when MAJOR.MINOR match, later ones when MAJOR matches (the spec's versioning rule).
 */
final class SmcpVersions {
    /** What the agent speaks, newest first: the first is offered, the others only after a 4008 refusal names them. */
    static final List<String> SPOKEN = List.of("0.3.0", "0.2.0");
    static final String LATEST = SPOKEN.getFirst();
    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+)");

    private SmcpVersions() {}

    /** True from 0.3 on: role only in {@code server:join_office}, tools by bundle id, SKILLs, blobs, no Finder events. */
    static boolean isV03(String version) {
        int[] v = parse(version);
        return v != null && (v[0] > 0 || v[1] >= 3);
    }

    static boolean compatible(String a, String b) {
        int[] x = parse(a);
        int[] y = parse(b);
        if (x == null || y == null) return false;
        return x[0] == 0 || y[0] == 0 ? x[0] == y[0] && x[1] == y[1] : x[0] == y[0];
    }

    /**
     * A version the agent speaks that a server which refused {@code refused} (4008) accepts: within its
     * {@code min_supported}..{@code max_supported} range, or compatible with its {@code server_version}; newest first.
     */
    static Optional<String> accepted(String refused, String serverVersion, String minSupported, String maxSupported) {
        for (String candidate : SPOKEN) {
            if (candidate.equals(refused)) continue;
            boolean inRange = parse(minSupported) != null && parse(maxSupported) != null
                    && compare(minSupported, candidate) <= 0 && compare(candidate, maxSupported) <= 0;
            if (inRange || compatible(candidate, serverVersion)) return Optional.of(candidate);
        }
        return Optional.empty();
    }

    static int compare(String a, String b) {
        int[] x = parse(a);
        int[] y = parse(b);
        for (int i = 0; i < 3; i++) if (x[i] != y[i]) return Integer.compare(x[i], y[i]);
        return 0;
    }

    private static int[] parse(String version) {
        if (version == null) return null;
        Matcher m = VERSION.matcher(version.strip());
        if (!m.matches()) return null;
        try {
            return new int[]{Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))};
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
