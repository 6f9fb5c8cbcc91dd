package cn.agentao.agent.cli;

import cn.agentao.agent.door.acp.AcpAgent;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A build step, not a user feature: {@code scripts/train-aot.sh} runs the agent with {@code --aot-training}
 * while the JVM records an AOT cache. One ACP session (handshake, session/new, a prompt whose answer calls a
 * tool and then streams text, a slash command) runs against a canned OpenAI-style stream on loopback, so the
 * cache holds what a real first turn loads and the editor's first answer starts sooner.
 */
final class AotTraining {
    /** A script line that waits for the previous prompt's answer (one turn at a time per session). */
    private static final String WAIT_FOR_ANSWER = "@wait";

    private AotTraining() {}

    static int run() throws Exception {
        Logging.configure(System.getenv().getOrDefault("AGENT_LOG_LEVEL", "warn"), null);
        Path tmp = Files.createTempDirectory("agent-aot-training");
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(ws.resolve("README.md"), "# training\nA file for the tool call to read.\n");
        ServerSocket model = cannedModel();
        try {
            Map<String, String> env = Map.of(
                    "OPENAI_API_KEY", "aot-training", "OPENAI_MODEL", "training-model",
                    "OPENAI_BASE_URL", "http://127.0.0.1:" + model.getLocalPort() + "/v1",
                    "AGENT_SESSIONS_DIR", tmp.resolve("sessions").toString(),
                    "XDG_CONFIG_HOME", tmp.resolve("config").toString(), "HOME", tmp.toString());
            CountDownLatch answered = new CountDownLatch(2);
            String sid = "\"__SID__\"";
            String[] lines = {
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1,\"clientCapabilities\":{}}}",
                    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/new\",\"params\":{\"cwd\":\"" + ws + "\",\"mcpServers\":[]}}",
                    "not json",
                    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/prompt\",\"params\":{\"sessionId\":" + sid + ",\"prompt\":[{\"type\":\"text\",\"text\":\"Read the README\"}]}}",
                    WAIT_FOR_ANSWER,
                    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"session/prompt\",\"params\":{\"sessionId\":" + sid + ",\"prompt\":[{\"type\":\"text\",\"text\":\"/help\"}]}}",
                    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"session/list\",\"params\":{}}"};
            SessionWatcher out = new SessionWatcher(answered);
            AcpLaunch.parse(new String[]{"--acp"}); // the option reader's classes, read at every editor start
            AcpAgent agent = AcpLaunch.agent(new AcpLaunch.Options(null, "warn", null, null, AcpLaunch.DEFAULT_MAX_MESSAGE_BYTES, new StoreOptions()),
                    env, new ScriptedInput(lines, out, answered), out);
            agent.serve(Duration.ofSeconds(5));
            // Not the chat's classes: everything in the AOT cache is loaded at every start (JEP 483), so warming JLine here
            // cost every editor start about 500 classes, 3.6 MB and 20 ms. ACP start-up comes first; the chat pays instead.
            return answered.getCount() == 0 ? 0 : 1;
        } finally {
            model.close();
        }
    }

    /**
     * The canned OpenAI-style model on loopback (also the chat training's): the first call gets a read_file tool call,
     * later ones streamed text. A bare socket, not com.sun.net.httpserver: every class a training loads goes into its
     * cache and is loaded at every start, so the canned model must not bring ~55 classes of its own.
     */
    static ServerSocket cannedModel() throws IOException {
        AtomicInteger calls = new AtomicInteger();
        ServerSocket model = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("aot-training-model").start(() -> serve(model, calls));
        return model;
    }

    /** Answers each connection's requests in turn (HTTP/1.1, kept alive) until the socket is closed. */
    private static void serve(ServerSocket model, AtomicInteger calls) {
        while (!model.isClosed()) {
            try {
                Socket s = model.accept();
                Thread.ofPlatform().daemon().start(() -> {
                    try (s; InputStream in = new BufferedInputStream(s.getInputStream()); OutputStream out = s.getOutputStream()) {
                        while (readRequest(in)) {
                            byte[] body = answer(calls.getAndIncrement() == 0);
                            out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: " + body.length + "\r\n\r\n")
                                    .getBytes(StandardCharsets.US_ASCII));
                            out.write(body);
                            out.flush();
                        }
                    } catch (IOException e) {
                        // the agent closed the connection
                    }
                });
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Reads one request (head and a Content-Length body); false at the end of the connection. */
    private static boolean readRequest(InputStream in) throws IOException {
        long length = 0;
        StringBuilder line = new StringBuilder();
        boolean any = false;
        for (int c; (c = in.read()) >= 0; ) {
            any = true;
            if (c == '\r') continue;
            if (c != '\n') {
                line.append((char) c);
                continue;
            }
            if (line.isEmpty()) {
                in.readNBytes((int) length);
                return true;
            }
            String h = line.toString();
            if (h.regionMatches(true, 0, "content-length:", 0, 15)) length = Long.parseLong(h.substring(15).trim());
            line.setLength(0);
        }
        if (any) throw new IOException("request cut short");
        return false;
    }

    /** First call: a read_file tool call; then streamed text with usage. */
    private static byte[] answer(boolean toolCall) {
        StringBuilder sse = new StringBuilder();
        String head = "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"training-model\",\"choices\":[{\"index\":0,\"delta\":";
        if (toolCall) {
            sse.append("data: ").append(head).append("{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n");
            sse.append("data: ").append(head).append("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"path\\\":\\\"README.md\\\"}\"}}]},\"finish_reason\":null}]}\n\n");
            sse.append("data: ").append(head).append("{},\"finish_reason\":\"tool_calls\"}]}\n\n");
        } else {
            for (String t : new String[]{"The ", "README ", "says hello."}) {
                sse.append("data: ").append(head).append("{\"content\":\"").append(t).append("\"},\"finish_reason\":null}]}\n\n");
            }
            sse.append("data: ").append(head).append("{},\"finish_reason\":\"stop\"}]}\n\n");
        }
        sse.append("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"training-model\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15}}\n\n");
        sse.append("data: [DONE]\n\n");
        return sse.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Reads the agent's output: learns the session id, counts the prompt answers. */
    private static final class SessionWatcher extends OutputStream {
        private final CountDownLatch answered;
        private final StringBuilder line = new StringBuilder();
        volatile String sessionId;
        final CountDownLatch haveSession = new CountDownLatch(1);
        final java.util.concurrent.Semaphore answers = new java.util.concurrent.Semaphore(0);

        SessionWatcher(CountDownLatch answered) {
            this.answered = answered;
        }

        @Override
        public synchronized void write(int b) {
            if (b != '\n') {
                line.append((char) b);
                return;
            }
            String l = line.toString();
            line.setLength(0);
            if (sessionId == null && l.contains("\"id\":2,") && l.contains("\"sessionId\":\"")) {
                int at = l.indexOf("\"sessionId\":\"") + 13;
                sessionId = l.substring(at, l.indexOf('"', at));
                haveSession.countDown();
            }
            if (l.contains("\"stopReason\"")) {
                answered.countDown();
                answers.release();
            }
        }
    }

    /** Feeds the lines (after session/new, with the real session id), then ends once both prompts were answered. */
    private static final class ScriptedInput extends InputStream {
        private final String[] lines;
        private final SessionWatcher out;
        private final CountDownLatch answered;
        private int next;
        private InputStream current = InputStream.nullInputStream();

        ScriptedInput(String[] lines, SessionWatcher out, CountDownLatch answered) {
            this.lines = lines;
            this.out = out;
            this.answered = answered;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = current.read(b, off, len);
            while (n <= 0) {
                try {
                    if (next == lines.length) {
                        answered.await(30, TimeUnit.SECONDS);
                        return -1;
                    }
                    String l = lines[next++];
                    if (l.equals(WAIT_FOR_ANSWER)) {
                        out.answers.tryAcquire(30, TimeUnit.SECONDS);
                        continue;
                    }
                    if (l.contains("__SID__")) {
                        out.haveSession.await(30, TimeUnit.SECONDS);
                        l = l.replace("__SID__", String.valueOf(out.sessionId));
                    }
                    current = new ByteArrayInputStream((l + "\n").getBytes(StandardCharsets.UTF_8));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return -1;
                }
                n = current.read(b, off, len);
            }
            return n;
        }
    }
}
