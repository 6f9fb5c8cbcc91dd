package cn.agentao.agent.net;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The hosts {@code NO_PROXY} sends straight to their server, read as curl reads it: a comma (or space) separated
 * list; {@code *} alone matches every host; a name matches itself and every name below it ({@code example.com},
 * {@code .example.com} and {@code *.example.com} all match {@code example.com} and {@code www.example.com}, not
 * {@code notexample.com}); an IP address or a CIDR range ({@code 10.0.0.0/8}, {@code fd00::/8}) matches a URL whose
 * host is written as an address in it (names are not resolved for this); an entry with a port
 * ({@code host:8080}, {@code [::1]:8080}) matches that port only. Case and a trailing dot do not matter.
 */
final class NoProxy {
    static final NoProxy NONE = new NoProxy(false, List.of());

    private sealed interface Entry permits Name, Range {
        boolean matches(String host, byte[] address, int port);
    }

    /** A domain name and everything below it (never a host written as an address); {@code port} -1 means any. */
    private record Name(String domain, int port) implements Entry {
        @Override
        public boolean matches(String host, byte[] address, int port) {
            return address == null && (this.port < 0 || this.port == port) && (host.equals(domain) || host.endsWith("." + domain));
        }
    }

    /** An address or a range of them, matched against hosts written as addresses. */
    private record Range(byte[] network, int bits, int port) implements Entry {
        @Override
        public boolean matches(String host, byte[] address, int port) {
            if (address == null || address.length != network.length || (this.port >= 0 && this.port != port)) return false;
            for (int i = 0; i < bits; i++) {
                int mask = 0x80 >>> (i % 8);
                if ((address[i / 8] & mask) != (network[i / 8] & mask)) return false;
            }
            return true;
        }
    }

    private final boolean everything;
    private final List<Entry> entries;

    private NoProxy(boolean everything, List<Entry> entries) {
        this.everything = everything;
        this.entries = entries;
    }

    static NoProxy parse(String value) {
        if (value == null || value.isBlank()) return NONE;
        List<Entry> entries = new ArrayList<>();
        for (String raw : value.split("[,\\s]+")) {
            String item = raw.strip().toLowerCase(Locale.ROOT);
            if (item.isEmpty()) continue;
            if (item.equals("*")) return new NoProxy(true, List.of());
            Entry e = entry(item);
            if (e != null) entries.add(e);
        }
        return new NoProxy(false, List.copyOf(entries));
    }

    /** Whether a request to {@code host} (as in a URI: IPv6 in brackets) on {@code port} goes without the proxy. */
    boolean matches(String host, int port) {
        if (everything) return true;
        if (entries.isEmpty() || host == null) return false;
        String h = normalise(host);
        byte[] address = literal(h);
        for (Entry e : entries) {
            if (e.matches(h, address, port)) return true;
        }
        return false;
    }

    private static Entry entry(String item) {
        String hostPart = item;
        int port = -1;
        if (item.startsWith("[")) { // [v6] or [v6]:port
            int close = item.indexOf(']');
            if (close < 0) return null;
            hostPart = item.substring(1, close);
            String rest = item.substring(close + 1);
            if (rest.startsWith(":")) port = port(rest.substring(1));
            if (port == -2) return null;
        } else if (item.indexOf(':') >= 0 && item.indexOf(':') == item.lastIndexOf(':')) { // host:port
            int colon = item.indexOf(':');
            hostPart = item.substring(0, colon);
            port = port(item.substring(colon + 1));
            if (port == -2) return null;
        }
        int slash = hostPart.indexOf('/');
        if (slash >= 0) {
            byte[] network = literal(hostPart.substring(0, slash));
            if (network == null) return null;
            int bits;
            try {
                bits = Integer.parseInt(hostPart.substring(slash + 1));
            } catch (NumberFormatException e) {
                return null;
            }
            if (bits < 0 || bits > network.length * 8) return null;
            return new Range(network, bits, port);
        }
        byte[] address = literal(hostPart);
        if (address != null) return new Range(address, address.length * 8, port);
        String domain = hostPart.startsWith("*.") ? hostPart.substring(2) : hostPart;
        while (domain.startsWith(".")) domain = domain.substring(1);
        domain = normalise(domain);
        return domain.isEmpty() ? null : new Name(domain, port);
    }

    /** The port number, or -2 when it is not one. */
    private static int port(String text) {
        try {
            int p = Integer.parseInt(text);
            return p >= 0 && p <= 65535 ? p : -2;
        } catch (NumberFormatException e) {
            return -2;
        }
    }

    private static String normalise(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) h = h.substring(1, h.length() - 1);
        while (h.endsWith(".")) h = h.substring(0, h.length() - 1);
        return h;
    }

    /** The bytes of an IP address literal (dotted IPv4 or IPv6), null for anything else; never a DNS query. */
    static byte[] literal(String text) {
        String t = text;
        int zone = t.indexOf('%');
        if (zone >= 0) t = t.substring(0, zone);
        boolean v4 = t.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean v6 = t.indexOf(':') >= 0 && t.matches("[0-9a-f:.]+");
        if (!v4 && !v6) return null;
        if (v4) {
            byte[] out = new byte[4];
            String[] parts = t.split("\\.");
            for (int i = 0; i < 4; i++) {
                int b = Integer.parseInt(parts[i]);
                if (b > 255) return null;
                out[i] = (byte) b;
            }
            return out;
        }
        try {
            return InetAddress.getByName("[" + t + "]").getAddress(); // bracketed: parsed as a literal, never looked up
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
