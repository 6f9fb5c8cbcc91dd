package cn.agentao.agent.bench;

import cn.agentao.agent.net.Network;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * What trusting the extra CAs costs when the first TLS client is built: a fresh JVM (the launcher's flags: C1 only,
 * Serial GC) builds the TLS context the agent uses (the JDK's CAs plus the system bundle plus SSL_CERT_FILE/DIR)
 * versus the JDK's default context, in alternating rounds; prints the medians and their ratio.
 * Run: bench/tls-setup.sh [rounds]
 */
public final class TlsSetupBenchmark {
    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("child")) {
            // logging and lambdas are set up long before a session's first TLS client in the agent: not part of the cost
            org.slf4j.LoggerFactory.getLogger(TlsSetupBenchmark.class).debug("start");
            List.of("warm", "up").forEach(s -> s.length());
            long start = System.nanoTime();
            SSLContext context = args[1].equals("agent") ? Network.get().sslContext() : SSLContext.getDefault();
            context.createSSLEngine("example.com", 443).getSSLParameters();
            System.out.println(System.nanoTime() - start);
            return;
        }
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        List<Long> jdk = new ArrayList<>();
        List<Long> agent = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            jdk.add(child("jdk"));
            agent.add(child("agent"));
        }
        long j = median(jdk);
        long a = median(agent);
        System.out.printf("TLS context, fresh JVM: JDK default median %d ms, agent (JDK + system bundle + SSL_CERT_*) median %d ms, "
                + "ratio %.2f, extra %d ms (%d rounds)%n", j, a, (double) a / j, a - j, rounds);
    }

    private static long child(String mode) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xlog:disable",
                "-cp", System.getProperty("java.class.path"), TlsSetupBenchmark.class.getName(), "child", mode)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IllegalStateException(mode + " failed: " + out);
        return TimeUnit.NANOSECONDS.toMillis(Long.parseLong(out));
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
