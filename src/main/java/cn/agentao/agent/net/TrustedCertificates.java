package cn.agentao.agent.net;

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
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
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
    private static final Pattern PEM = Pattern.compile(
            "-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\\s]+?)-----END CERTIFICATE-----");

    private final SSLContext context;
    private final List<X509Certificate> acceptedIssuers;
    private final int added;
    private final List<String> problems;

    private TrustedCertificates(SSLContext context, List<X509Certificate> acceptedIssuers, int added, List<String> problems) {
        this.context = context;
        this.acceptedIssuers = List.copyOf(acceptedIssuers);
        this.added = added;
        this.problems = List.copyOf(problems);
    }

    static TrustedCertificates load(Map<String, String> env, List<Path> systemBundles) {
        List<String> problems = new ArrayList<>();
        Set<X509Certificate> extra = new LinkedHashSet<>();
        for (Path bundle : systemBundles) {
            if (Files.isRegularFile(bundle)) {
                extra.addAll(readFile(bundle, "the system bundle", problems));
                break;
            }
        }
        String file = env.get("SSL_CERT_FILE");
        if (file != null && !file.isBlank()) {
            Path p = Path.of(file.strip());
            if (!Files.isRegularFile(p)) problems.add("SSL_CERT_FILE=" + file.strip() + " is not a file");
            else {
                int before = problems.size();
                List<X509Certificate> read = readFile(p, "SSL_CERT_FILE", problems);
                if (read.isEmpty() && problems.size() == before) problems.add("SSL_CERT_FILE=" + p + " holds no PEM certificate");
                extra.addAll(read);
            }
        }
        String dirs = env.get("SSL_CERT_DIR");
        if (dirs != null && !dirs.isBlank()) {
            for (String d : dirs.strip().split(File.pathSeparator)) {
                if (!d.isBlank()) extra.addAll(readDirectory(Path.of(d.strip()), problems));
            }
        }
        try {
            TrustManagerFactory jdk = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            jdk.init((KeyStore) null);
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int n = 0;
            Set<X509Certificate> all = new LinkedHashSet<>(List.of(((X509TrustManager) jdk.getTrustManagers()[0]).getAcceptedIssuers()));
            int jdkCount = all.size();
            all.addAll(extra);
            for (X509Certificate c : all) store.setCertificateEntry("ca" + n++, c);
            TrustManagerFactory combined = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            combined.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, combined.getTrustManagers(), null);
            return new TrustedCertificates(context, List.of(((X509TrustManager) combined.getTrustManagers()[0]).getAcceptedIssuers()),
                    all.size() - jdkCount, problems);
        } catch (GeneralSecurityException | IOException e) {
            problems.add("the extra certificate authorities could not be used (" + e.getMessage() + "); only the JDK's are trusted");
            try {
                return new TrustedCertificates(SSLContext.getDefault(), List.of(), 0, problems);
            } catch (GeneralSecurityException fatal) {
                throw new IllegalStateException("no TLS available in this Java runtime", fatal);
            }
        }
    }

    SSLContext context() { return context; }

    /** Every CA trusted. */
    List<X509Certificate> acceptedIssuers() { return acceptedIssuers; }

    /** How many trusted CAs were added to the JDK's. */
    int added() { return added; }

    List<String> problems() { return problems; }

    private static List<X509Certificate> readFile(Path file, String what, List<String> problems) {
        try {
            return parse(Files.readAllBytes(file));
        } catch (IOException e) {
            problems.add(what + ": cannot read " + file + " (" + e.getMessage() + ")");
        } catch (CertificateException e) {
            problems.add(what + ": " + file + " holds a certificate that cannot be parsed (" + e.getMessage() + ")");
        }
        return List.of();
    }

    /** Every certificate file of a directory (its hash links and the files they point to read once). */
    private static List<X509Certificate> readDirectory(Path dir, List<String> problems) {
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
                    out.addAll(parse(Files.readAllBytes(real)));
                } catch (IOException | CertificateException e) {
                    // a directory of certificates may hold other files (keys, notes): only certificates count
                }
            }
        } catch (IOException e) {
            problems.add("SSL_CERT_DIR: cannot read " + dir + " (" + e.getMessage() + ")");
        }
        return out;
    }

    /** The certificates of PEM text ({@code BEGIN CERTIFICATE} blocks, anything around them ignored), or of one DER certificate. */
    static List<X509Certificate> parse(byte[] content) throws CertificateException {
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        String text = new String(content, StandardCharsets.ISO_8859_1);
        List<X509Certificate> out = new ArrayList<>();
        Matcher m = PEM.matcher(text);
        while (m.find()) {
            byte[] der;
            try {
                der = Base64.getMimeDecoder().decode(m.group(1));
            } catch (IllegalArgumentException e) {
                throw new CertificateException("bad base64 in a PEM block");
            }
            out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
        }
        if (out.isEmpty() && content.length > 0 && content[0] == 0x30) { // DER: an ASN.1 SEQUENCE
            out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(content)));
        }
        return out;
    }
}
