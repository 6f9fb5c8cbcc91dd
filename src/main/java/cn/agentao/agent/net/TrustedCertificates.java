package cn.agentao.agent.net;

import cn.agentao.agent.config.AgentConfig;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The certificate authorities TLS connections trust: the JDK's own, plus the operating system's bundle when there is
 * one ({@link #SYSTEM_BUNDLES}, where corporate CAs are installed with {@code update-ca-certificates}), plus the PEM
 * certificates in {@code SSL_CERT_FILE} and in the directories of {@code SSL_CERT_DIR} (separated by
 * {@code :}). Extra CAs add to the JDK's; none replaces them. A file that cannot be read or holds no certificate is
 * reported in {@link #problems()} and left out.
 */
final class TrustedCertificates {
    /** Debian/Ubuntu/Alpine, Fedora/RHEL, openSUSE, macOS/BSD: the first that exists is read. */
    static final List<Path> SYSTEM_BUNDLES = List.of(Path.of("/etc/ssl/certs/ca-certificates.crt"),
            Path.of("/etc/pki/tls/certs/ca-bundle.crt"), Path.of("/etc/ssl/ca-bundle.pem"), Path.of("/etc/ssl/cert.pem"));
    private static final String BEGIN = "-----BEGIN CERTIFICATE-----";
    private static final String END = "-----END CERTIFICATE-----";

    private final SSLContext context;
    private final X509TrustManager trustManager;
    private final List<X509Certificate> acceptedIssuers;
    private final int added;
    private final List<String> problems;

    private TrustedCertificates(SSLContext context, X509TrustManager trustManager, List<X509Certificate> acceptedIssuers, int added,
                                List<String> problems) {
        this.context = context;
        this.trustManager = trustManager;
        this.acceptedIssuers = List.copyOf(acceptedIssuers);
        this.added = added;
        this.problems = List.copyOf(problems);
    }

    static TrustedCertificates load(AgentConfig.Certificates certificates, List<Path> systemBundles) {
        List<String> problems = new ArrayList<>();
        X509ExtendedTrustManager jdk;
        try {
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init((KeyStore) null);
            jdk = (X509ExtendedTrustManager) factory.getTrustManagers()[0];
        } catch (GeneralSecurityException | ClassCastException e) {
            throw new IllegalStateException("no TLS trust manager in this Java runtime", e);
        }
        // Certificates the JDK already trusts are recognised by their encoding and not parsed again: the system
        // bundle mostly repeats them, and parsing is what costs.
        Set<String> known = new HashSet<>();
        for (X509Certificate c : jdk.getAcceptedIssuers()) {
            try {
                known.add(Base64.getEncoder().encodeToString(c.getEncoded()));
            } catch (CertificateException ignored) {
                // then it is parsed and added again, which does no harm
            }
        }
        Set<X509Certificate> extra = new LinkedHashSet<>();
        for (Path bundle : systemBundles) {
            if (Files.isRegularFile(bundle)) {
                extra.addAll(readFile(bundle, "the system bundle", known, problems));
                break;
            }
        }
        String file = certificates.file();
        if (file != null && !file.isBlank()) {
            Path p = Path.of(file.strip());
            if (!Files.isRegularFile(p)) problems.add("SSL_CERT_FILE=" + file.strip() + " is not a file");
            else {
                int before = problems.size();
                List<X509Certificate> read = readFile(p, "SSL_CERT_FILE", known, problems);
                if (read.isEmpty() && problems.size() == before && !holdsCertificates(p)) {
                    problems.add("SSL_CERT_FILE=" + p + " holds no PEM certificate");
                }
                extra.addAll(read);
            }
        }
        String dirs = certificates.dirs();
        if (dirs != null && !dirs.isBlank()) {
            for (String d : dirs.strip().split(File.pathSeparator)) {
                if (!d.isBlank()) extra.addAll(readDirectory(Path.of(d.strip()), known, problems));
            }
        }
        try {
            X509ExtendedTrustManager trust = jdk;
            if (!extra.isEmpty()) {
                KeyStore store = KeyStore.getInstance("PKCS12");
                store.load(null, null);
                int n = 0;
                for (X509Certificate c : extra) store.setCertificateEntry("ca" + n++, c);
                TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                factory.init(store);
                trust = new CombinedTrustManager(jdk, (X509ExtendedTrustManager) factory.getTrustManagers()[0]);
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {trust}, null);
            return new TrustedCertificates(context, trust, List.of(trust.getAcceptedIssuers()), extra.size(), problems);
        } catch (GeneralSecurityException | IOException e) {
            problems.add("the extra certificate authorities could not be used (" + e.getMessage() + "); only the JDK's are trusted");
            try {
                return new TrustedCertificates(SSLContext.getDefault(), jdk, List.of(jdk.getAcceptedIssuers()), 0, problems);
            } catch (GeneralSecurityException fatal) {
                throw new IllegalStateException("no TLS available in this Java runtime", fatal);
            }
        }
    }

    SSLContext context() { return context; }

    /** The trust manager behind {@link #context()}, for clients that take both (OkHttp). */
    X509TrustManager trustManager() { return trustManager; }

    /** Every CA trusted. */
    List<X509Certificate> acceptedIssuers() { return acceptedIssuers; }

    /** How many trusted CAs were added to the JDK's. */
    int added() { return added; }

    List<String> problems() { return problems; }

    private static List<X509Certificate> readFile(Path file, String what, Set<String> known, List<String> problems) {
        try {
            return parse(Files.readAllBytes(file), known);
        } catch (IOException e) {
            problems.add(what + ": cannot read " + file + " (" + e.getMessage() + ")");
        } catch (CertificateException e) {
            problems.add(what + ": " + file + " holds a certificate that cannot be parsed (" + e.getMessage() + ")");
        }
        return List.of();
    }

    /** Every certificate file of a directory (its hash links and the files they point to read once). */
    private static List<X509Certificate> readDirectory(Path dir, Set<String> known, List<String> problems) {
        if (!Files.isDirectory(dir)) {
            problems.add("SSL_CERT_DIR: " + dir + " is not a directory");
            return List.of();
        }
        List<X509Certificate> out = new ArrayList<>();
        Set<Path> seen = new HashSet<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                if (!Files.isRegularFile(entry)) continue;
                Path real = entry.toRealPath();
                if (!seen.add(real)) continue;
                try {
                    out.addAll(parse(Files.readAllBytes(real), known));
                } catch (IOException | CertificateException e) {
                    // a directory of certificates may hold other files (keys, notes): only certificates count
                }
            }
        } catch (IOException e) {
            problems.add("SSL_CERT_DIR: cannot read " + dir + " (" + e.getMessage() + ")");
        }
        return out;
    }

    private static boolean holdsCertificates(Path file) {
        try {
            return new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).contains(BEGIN);
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The certificates of PEM text ({@code BEGIN CERTIFICATE} blocks, anything around them ignored), or of one DER
     * certificate, leaving out those whose base64 encoding is in {@code known}.
     */
    static List<X509Certificate> parse(byte[] content, Set<String> known) throws CertificateException {
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        String text = new String(content, StandardCharsets.ISO_8859_1);
        List<X509Certificate> out = new ArrayList<>();
        boolean blocks = false;
        // indexOf, not a regular expression: a cold JVM takes ~100 ms to run one over a 200 KB system bundle
        for (int at = text.indexOf(BEGIN); at >= 0; at = text.indexOf(BEGIN, at)) {
            int end = text.indexOf(END, at);
            if (end < 0) break;
            blocks = true;
            String base64 = withoutWhitespace(text, at + BEGIN.length(), end);
            at = end + END.length();
            if (known.contains(base64)) continue;
            byte[] der;
            try {
                der = Base64.getDecoder().decode(base64);
            } catch (IllegalArgumentException e) {
                throw new CertificateException("bad base64 in a PEM block");
            }
            out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
        }
        if (!blocks && content.length > 0 && content[0] == 0x30) { // DER: an ASN.1 SEQUENCE
            out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(content)));
        }
        return out;
    }

    private static String withoutWhitespace(String text, int from, int to) {
        StringBuilder out = new StringBuilder(to - from);
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c > ' ') out.append(c);
        }
        return out.toString();
    }

}
