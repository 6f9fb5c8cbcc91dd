package cn.agentao.agent.cli;

import cn.agentao.agent.door.terminal.Chat;
import org.jline.terminal.Size;
import org.jline.terminal.TerminalBuilder;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A build step, not a user feature: {@code scripts/train-aot.sh} runs the agent with {@code --aot-training-chat} while
 * the JVM records the chat's own AOT cache ({@code target/agent-chat.aot}, chosen by the launchers only when the chat
 * will run: the editors' cache stays free of JLine). The real chat runs on a pseudo-terminal (opened by JLine's JNI
 * provider, like the chat's own terminal) against the canned model of {@link AotTraining}: the prompt, a question whose
 * answer calls a tool and streams text, {@code /sessions}, Ctrl-D.
 */
final class ChatTraining {
    private ChatTraining() {}

    static int run() throws Exception {
        Path tmp = Files.createTempDirectory("agent-aot-chat");
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(ws.resolve("README.md"), "# training\nA file for the tool call to read.\n");
        ServerSocket model = AotTraining.cannedModel();
        Screen screen = new Screen();
        PipedOutputStream keys = new PipedOutputStream();
        PipedInputStream keyboard = new PipedInputStream(keys, 4096);
        try {
            Map<String, String> env = Map.of(
                    "OPENAI_API_KEY", "aot-training", "OPENAI_MODEL", "training-model",
                    "OPENAI_BASE_URL", "http://127.0.0.1:" + model.getLocalPort() + "/v1",
                    "AGENT_SESSIONS_DIR", tmp.resolve("sessions").toString(), "TERM", "xterm-256color",
                    "XDG_CONFIG_HOME", tmp.resolve("config").toString(), "XDG_STATE_HOME", tmp.resolve("state").toString(),
                    "HOME", tmp.toString());
            Chat.Request request = new Chat.Request(ws, null, null, null, cn.agentao.agent.config.AgentConfig.Terminal.from(env));
            CompletableFuture<Integer> chat = CompletableFuture.supplyAsync(() -> Chat.run(
                    () -> CoreFactory.create(env, null), request,
                    () -> TerminalBuilder.builder().system(false).provider("jni").type("xterm-256color")
                            .streams(keyboard, screen).size(new Size(100, 40)).build(), false),
                    r -> Thread.ofPlatform().name("chat").daemon().start(r));
            screen.await("\u203a", chat);
            type(keys, "Read the **README**\r");
            screen.await("says hello", chat);
            screen.await("\u203a", chat); // keys only once the prompt is back: between lines the terminal is not raw
            type(keys, "/sessions\r");
            screen.await("/resume ID", chat);
            screen.await("\u203a", chat);
            type(keys, "\u0004");
            return chat.get(30, TimeUnit.SECONDS);
        } finally {
            keys.close();
            model.close();
        }
    }

    private static void type(OutputStream keys, String text) throws IOException {
        keys.write(text.getBytes(StandardCharsets.UTF_8));
        keys.flush();
    }

    /** What the chat drew, kept to wait for a text on it. */
    private static final class Screen extends OutputStream {
        private final java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            seen.write(b);
            notifyAll();
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            seen.write(b, off, len);
            notifyAll();
        }

        synchronized void await(String text, CompletableFuture<?> chat) throws InterruptedException, IOException {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int at;
            while ((at = seen.toString(StandardCharsets.UTF_8).indexOf(text)) < 0) {
                if (chat.isDone() || System.nanoTime() > end) {
                    throw new IOException("the chat never showed " + text + ":\n" + seen.toString(StandardCharsets.UTF_8));
                }
                wait(100);
            }
            byte[] rest = seen.toString(StandardCharsets.UTF_8).substring(at + text.length()).getBytes(StandardCharsets.UTF_8);
            seen.reset();
            seen.writeBytes(rest); // what came after the text is awaited next
        }
    }
}
