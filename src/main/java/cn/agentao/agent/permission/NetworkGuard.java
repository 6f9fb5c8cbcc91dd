package cn.agentao.agent.permission;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Keeps web fetches on the public internet (a server-side request forgery guard).
 *
 * <p>Only {@code http} and {@code https} URLs pass. The host is judged in every spelling a resolver might
 * accept: dotted, decimal ({@code 2130706433}), hex ({@code 0x7f000001}), octal ({@code 0177.0.0.1}) and short
 * ({@code 127.1}) IPv4, bracketed IPv6 including IPv4-mapped, -compatible, NAT64, 6to4 and Teredo forms; a name
 * is resolved with the injected {@link HostResolver} and every address it resolves to must pass. Host names
 * that cannot be resolved are refused.
 *
 * <p>Refused unless private network access is allowed: loopback (127/8, ::1, {@code localhost}), private
 * (10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10), link-local (169.254/16, fe80::/10), shared CGNAT
 * (100.64/10), 192.0.0/24 and benchmarking (198.18/15). Always refused: the unspecified address (0/8, ::),
 * multicast, reserved (240/4, broadcast) and the cloud metadata endpoints (169.254.169.254,
 * fd00:ec2::254, {@code metadata.google.internal}).
 *
 * <p>A name is resolved here and again by the HTTP client; a DNS answer that changes in between is not
 * caught. Check every redirect hop again.
 */
public final class NetworkGuard {

    /** Resolves a host name to its addresses (injectable so tests need no DNS). */
    @FunctionalInterface
    public interface HostResolver {
        List<InetAddress> resolve(String host) throws UnknownHostException;

        HostResolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));
    }

    private static final Set<String> LOOPBACK_NAMES = Set.of(
            "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback");
    private static final Set<String> METADATA_NAMES = Set.of(
            "metadata.google.internal", "metadata", "metadata.goog", "instance-data", "instance-data.ec2.internal");

    private final HostResolver resolver;
    private final boolean allowPrivateNetwork;

    public NetworkGuard(HostResolver resolver, boolean allowPrivateNetwork) {
        this.resolver = resolver;
        this.allowPrivateNetwork = allowPrivateNetwork;
    }

    /** Set to 1 to let web_fetch, remote agents and push webhooks reach loopback and private addresses (off by default). */
    public static final String ALLOW_PRIVATE_NETWORK = cn.agentao.agent.config.AgentConfig.Network.ALLOW_PRIVATE_NETWORK_ENV;

    /** The guard for this process's environment: the system resolver, private networks only with {@value #ALLOW_PRIVATE_NETWORK}=1. */
    public static NetworkGuard fromEnvironment(java.util.Map<String, String> env) {
        return of(cn.agentao.agent.config.AgentConfig.Network.from(env));
    }

    /** The guard the configuration's {@code network} section describes, with the system resolver. */
    public static NetworkGuard of(cn.agentao.agent.config.AgentConfig.Network network) {
        return new NetworkGuard(HostResolver.SYSTEM, network.allowPrivateNetwork());
    }

    /** The system resolver, private network refused. */
    public static NetworkGuard standard() {
        return new NetworkGuard(HostResolver.SYSTEM, false);
    }

    public boolean allowsPrivateNetwork() { return allowPrivateNetwork; }

    /** Why the URL may not be fetched, or empty when it may. */
    public Optional<String> refusal(String url) {
        try {
            return refusal(new URI(url));
        } catch (URISyntaxException e) {
            return Optional.of("malformed URL: " + e.getReason());
        }
    }

    /** Why the URL may not be fetched, or empty when it may. */
    public Optional<String> refusal(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return Optional.of("only http and https URLs can be fetched, not '" + scheme + "'");
        }
        String host = hostOf(uri);
        if (host == null || host.isEmpty()) return Optional.of("the URL has no host");
        String name = host.toLowerCase(Locale.ROOT);
        while (name.endsWith(".")) name = name.substring(0, name.length() - 1);

        if (name.startsWith("[")) {
            if (!name.endsWith("]")) return Optional.of("malformed IPv6 address " + host);
            String literal = name.substring(1, name.length() - 1).replace("%25", "%");
            int zone = literal.indexOf('%');
            if (zone >= 0) literal = literal.substring(0, zone);
            if (!literal.matches("[0-9a-f:.]+")) return Optional.of("malformed IPv6 address " + host);
            try {
                return judge(host, InetAddress.getByName(literal)); // a literal: no DNS
            } catch (UnknownHostException e) {
                return Optional.of("malformed IPv6 address " + host);
            }
        }
        if (looksNumeric(name)) {
            byte[] v4 = parseLegacyIpv4(name);
            if (v4 == null) return Optional.of("malformed numeric address " + host);
            try {
                return judge(host, InetAddress.getByAddress(v4));
            } catch (UnknownHostException e) {
                return Optional.of("malformed numeric address " + host);
            }
        }
        if (METADATA_NAMES.contains(name)) return Optional.of(host + " is a cloud metadata endpoint");
        if (!allowPrivateNetwork && (LOOPBACK_NAMES.contains(name) || name.endsWith(".localhost"))) {
            return Optional.of(host + " is this machine (loopback)" + privateHint());
        }
        if (uri.getHost() == null) return Optional.of("unsupported host name " + host);
        List<InetAddress> addresses;
        try {
            addresses = resolver.resolve(name);
        } catch (UnknownHostException e) {
            return Optional.of("cannot resolve host " + host);
        } catch (RuntimeException e) {
            return Optional.of("cannot resolve host " + host + ": " + e.getClass().getSimpleName());
        }
        if (addresses == null || addresses.isEmpty()) return Optional.of("cannot resolve host " + host);
        for (InetAddress a : addresses) {
            Optional<String> why = judge(host, a);
            if (why.isPresent()) return why;
        }
        return Optional.empty();
    }

    private Optional<String> judge(String host, InetAddress address) {
        Category c = classify(address);
        if (c == Category.PUBLIC) return Optional.empty();
        String shown = host.equals(address.getHostAddress()) ? host : host + " (" + address.getHostAddress() + ")";
        if (c.alwaysRefused) return Optional.of(shown + " is " + c.description);
        if (allowPrivateNetwork) return Optional.empty();
        return Optional.of(shown + " is " + c.description + privateHint());
    }

    private static String privateHint() {
        return "; web fetches reach only the public internet unless private network access is enabled";
    }

    /** What kind of address this is. */
    enum Category {
        PUBLIC("public", false),
        LOOPBACK("a loopback address", false),
        PRIVATE("a private network address", false),
        LINK_LOCAL("a link-local address", false),
        SHARED("a shared (CGNAT) address", false),
        SPECIAL("a special-purpose address", false),
        METADATA("a cloud metadata endpoint", true),
        UNSPECIFIED("the unspecified address", true),
        MULTICAST("a multicast address", true),
        RESERVED("a reserved address", true);

        final String description;
        final boolean alwaysRefused;

        Category(String description, boolean alwaysRefused) {
            this.description = description;
            this.alwaysRefused = alwaysRefused;
        }
    }

    static Category classify(InetAddress address) {
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) return classifyV4(b);
        if (address instanceof Inet6Address) return classifyV6(b);
        return Category.RESERVED;
    }

    private static Category classifyV4(byte[] b) {
        int a0 = b[0] & 0xff, a1 = b[1] & 0xff, a2 = b[2] & 0xff, a3 = b[3] & 0xff;
        if (a0 == 169 && a1 == 254 && a2 == 169 && a3 == 254) return Category.METADATA;
        if (a0 == 0) return Category.UNSPECIFIED;
        if (a0 == 127) return Category.LOOPBACK;
        if (a0 == 10 || (a0 == 172 && (a1 & 0xf0) == 16) || (a0 == 192 && a1 == 168)) return Category.PRIVATE;
        if (a0 == 169 && a1 == 254) return Category.LINK_LOCAL;
        if (a0 == 100 && (a1 & 0xc0) == 64) return Category.SHARED;
        if ((a0 == 192 && a1 == 0 && a2 == 0) || (a0 == 198 && (a1 & 0xfe) == 18)) return Category.SPECIAL;
        if (a0 >= 224 && a0 <= 239) return Category.MULTICAST;
        if (a0 >= 240) return Category.RESERVED;
        return Category.PUBLIC;
    }

    private static Category classifyV6(byte[] b) {
        boolean first10Zero = true;
        for (int i = 0; i < 10; i++) first10Zero &= b[i] == 0;
        if (first10Zero && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) return classifyV4(slice(b, 12)); // mapped
        if (first10Zero && b[10] == 0 && b[11] == 0) {
            boolean upperZero = b[12] == 0 && b[13] == 0 && b[14] == 0;
            if (upperZero && b[15] == 0) return Category.UNSPECIFIED;
            if (upperZero && b[15] == 1) return Category.LOOPBACK;
            return classifyV4(slice(b, 12)); // IPv4-compatible ::a.b.c.d
        }
        int w0 = ((b[0] & 0xff) << 8) | (b[1] & 0xff);
        int w1 = ((b[2] & 0xff) << 8) | (b[3] & 0xff);
        if (w0 == 0xfd00 && w1 == 0x0ec2) {
            boolean metadata = (b[15] & 0xff) == 0x54 && (b[14] & 0xff) == 0x02;
            for (int i = 4; i < 14; i++) metadata &= b[i] == 0;
            if (metadata) return Category.METADATA;
        }
        if (w0 == 0x0064 && w1 == 0xff9b) {
            boolean wellKnown = true;
            for (int i = 4; i < 12; i++) wellKnown &= b[i] == 0;
            return wellKnown ? classifyV4(slice(b, 12)) : Category.PRIVATE; // NAT64 64:ff9b::/96, local-use /48
        }
        if (w0 == 0x2002) return classifyV4(slice(b, 2)); // 6to4
        if (w0 == 0x2001 && w1 == 0) { // Teredo: client address inverted in the last 32 bits
            byte[] client = slice(b, 12);
            for (int i = 0; i < 4; i++) client[i] = (byte) ~client[i];
            return classifyV4(client);
        }
        if ((b[0] & 0xfe) == 0xfc) return Category.PRIVATE; // fc00::/7 unique local
        if ((b[0] & 0xff) == 0xfe && (b[1] & 0xc0) == 0x80) return Category.LINK_LOCAL; // fe80::/10
        if ((b[0] & 0xff) == 0xfe && (b[1] & 0xc0) == 0xc0) return Category.PRIVATE; // fec0::/10 site-local
        if ((b[0] & 0xff) == 0xff) return Category.MULTICAST;
        return Category.PUBLIC;
    }

    private static byte[] slice(byte[] b, int from) {
        byte[] out = new byte[4];
        System.arraycopy(b, from, out, 0, 4);
        return out;
    }

    /** The host as written, from the URI or (when Java's parser gave none, e.g. {@code 127.1}) the authority. */
    private static String hostOf(URI uri) {
        if (uri.getHost() != null) return uri.getHost();
        String authority = uri.getRawAuthority();
        if (authority == null) return null;
        int at = authority.lastIndexOf('@');
        if (at >= 0) authority = authority.substring(at + 1);
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            return close < 0 ? authority : authority.substring(0, close + 1);
        }
        int colon = authority.lastIndexOf(':');
        return colon >= 0 ? authority.substring(0, colon) : authority;
    }

    /** Like the WHATWG URL parser: a host whose last label is a number is an IPv4 address (or an error). */
    private static boolean looksNumeric(String host) {
        int dot = host.lastIndexOf('.');
        String last = host.substring(dot + 1);
        return last.matches("[0-9]+|0x[0-9a-f]*");
    }

    /**
     * Parses IPv4 the way {@code inet_aton} does: one to four parts, each decimal, octal (leading 0) or hex
     * (0x), the last part filling the remaining bytes. Null when malformed or out of range.
     */
    static byte[] parseLegacyIpv4(String host) {
        String[] parts = host.split("\\.", -1);
        if (parts.length > 4) return null;
        long[] values = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i];
            int radix = 10;
            if (p.startsWith("0x")) {
                radix = 16;
                p = p.substring(2);
                if (p.isEmpty()) p = "0";
            } else if (p.length() > 1 && p.startsWith("0")) {
                radix = 8;
                p = p.substring(1);
            }
            if (p.isEmpty() || p.length() > 12) return null;
            try {
                values[i] = Long.parseLong(p, radix);
            } catch (NumberFormatException e) {
                return null;
            }
        }
        long address = 0;
        for (int i = 0; i < values.length - 1; i++) {
            if (values[i] > 255) return null;
            address |= values[i] << (24 - 8 * i);
        }
        long last = values[values.length - 1];
        int lastBits = 8 * (5 - values.length);
        if (lastBits < 32 && last >= (1L << lastBits) || last > 0xffffffffL) return null;
        address |= last;
        return new byte[]{(byte) (address >>> 24), (byte) (address >>> 16), (byte) (address >>> 8), (byte) address};
    }
}
