package cn.agentao.agent.store;

import cn.agentao.agent.core.repository.SessionBusyException;

import cn.agentao.agent.util.Json;

import java.nio.file.Path;

/**
 * The other agent process of the multi-process tests, started in its own JVM.
 * <ul>
 *   <li>{@code hold <dir> <id>}: opens the session for append, prints {@code holding}, and waits to be killed
 *       (or for its stdin to close);</li>
 *   <li>{@code append <dir> <id> <payloadChars>}: opens the session and appends records forever, printing each
 *       record's seq after its append returned;</li>
 *   <li>{@code create-many <dir> <prefix> <n>}: creates sessions {@code <prefix>0..<n-1>} with a few records
 *       each, listing the store in between, then prints {@code done};</li>
 *   <li>{@code try-open <dir> <id>}: prints {@code busy} or {@code opened}.</li>
 * </ul>
 * A child whose parent test JVM died ends by itself (stdin closed, stdout broken) rather than linger.
 */
public final class StoreChild {
    public static void main(String[] args) throws Exception {
        SessionStore store = new SessionStore(Path.of(args[1]), SyncPolicy.NO_FSYNC);
        String id = args[2];
        switch (args[0]) {
            case "hold" -> {
                SessionWriter writer = store.lease(id);
                System.out.println("holding " + writer.sessionId());
                System.out.flush();
                while (System.in.read() >= 0) {
                    // hold until killed or orphaned
                }
            }
            case "append" -> {
                String text = "x".repeat(Integer.parseInt(args[3]));
                try (SessionWriter writer = store.lease(id)) {
                    while (true) {
                        long seq = writer.append("agent_chunk", Json.object().put("text", text));
                        System.out.println(seq);
                        if (System.out.checkError()) return; // the parent is gone
                    }
                }
            }
            case "create-many" -> {
                for (int i = 0; i < Integer.parseInt(args[3]); i++) {
                    try (SessionWriter writer = store.create(id + i, Path.of("/work/" + id), null)) {
                        writer.append("user_message", Json.object().put("text", "hello from " + id + i));
                        writer.append("title", Json.object().put("text", id + i));
                    }
                    store.list(null, null, 5);
                }
                System.out.println("done");
            }
            case "try-open" -> {
                try (SessionWriter ignored = store.lease(id)) {
                    System.out.println("opened");
                } catch (SessionBusyException e) {
                    System.out.println("busy");
                }
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }
}
