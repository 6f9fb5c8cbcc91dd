package cn.agentao.agent.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's {@code tinyproxy} as the tests' proxy, optionally asking for Basic credentials; it logs each request line
 * when it reads it. It does not keep client connections open between requests, yet answers without
 * {@code Connection: close}: a client that reuses the connection (the JDK does) can have its next request relayed to
 * the previous server. Tests whose client sends many requests to a server that keeps connections use
 * {@link SquidProxy}.
 */
public final class TinyProxy extends TestProxy {
    private static final Pattern REQUEST = Pattern.compile("Request \\(file descriptor \\d+\\): (\\S+ \\S+) HTTP/");

    private final Path log;

    private TinyProxy(Process process, int port, Path log) {
        super(process, port);
        this.log = log;
    }

    /** Starts one without authentication. */
    public static TinyProxy start(Path dir) throws IOException, InterruptedException {
        return start(dir, null, null);
    }

    /** Starts one that wants {@code user}/{@code password} (Basic) when both are given. */
    public static TinyProxy start(Path dir, String user, String password) throws IOException, InterruptedException {
        String binary = require("tinyproxy");
        Files.createDirectories(dir);
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) { // a free port can be taken before the proxy binds it
            int port = freePort();
            Path log = dir.resolve("tinyproxy-" + port + ".log");
            Path conf = dir.resolve("tinyproxy-" + port + ".conf");
            Files.writeString(conf, "Port " + port + "\nListen 127.0.0.1\nTimeout 60\nMaxClients 50\nLogLevel Info\n"
                    + "LogFile \"" + log + "\"\n" + (user != null ? "BasicAuth " + user + " " + password + "\n" : ""));
            Process p = new ProcessBuilder(binary, "-d", "-c", conf.toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("tinyproxy-" + port + ".out").toFile()).start();
            if (listening(p, port)) return new TinyProxy(p, port, log);
            p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            last = new IOException("tinyproxy did not listen on port " + port + ": " + read(log));
        }
        throw last;
    }

    @Override
    public List<String> requests() {
        Matcher m = REQUEST.matcher(read(log));
        List<String> out = new ArrayList<>();
        while (m.find()) out.add(m.group(1));
        return out;
    }

    @Override
    public String log() {
        return read(log);
    }
}
