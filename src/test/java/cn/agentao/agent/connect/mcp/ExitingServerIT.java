package cn.agentao.agent.connect.mcp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static cn.agentao.agent.connect.mcp.McpTestServers.stdio;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stdio server that answers {@code initialize}, then closes its input and exits a moment later: the agent's
 * next write to it fails ("Broken pipe") while it is still running. The user is told how the server ended, not
 * what the write ran into.
 */
class ExitingServerIT {
    /** Echoes the request's id and protocol version in a minimal initialize result, then closes stdin and quits. */
    private static final String ANSWER_INITIALIZE_THEN_QUIT = """
            IFS= read -r line
            id=$(printf '%s' "$line" | sed -n 's/.*"id":\\("[^"]*"\\|[0-9][0-9]*\\).*/\\1/p')
            version=$(printf '%s' "$line" | sed -n 's/.*"protocolVersion":"\\([^"]*\\)".*/\\1/p')
            printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"%s","capabilities":{"tools":{}},"serverInfo":{"name":"quitter","version":"1"}}}\\n' "$id" "$version"
            exec 0<&-
            echo 'no input wanted' >&2
            sleep 1
            exit 4
            """;

    @TempDir
    Path root;

    @Test
    void aServerThatClosesItsInputIsReportedByHowItEnded() {
        McpTestServers.RecordingListener listener = new McpTestServers.RecordingListener();
        McpServerDefinition closes = McpServerDefinition.fromClient(stdio("closes", "sh",
                List.of("-c", ANSWER_INITIALIZE_THEN_QUIT), List.of()));
        try (McpServerSet set = McpServerSet.start(List.of(closes), root, listener)) {
            assertTrue(set.awaitReady(Duration.ofSeconds(30)), "the server settles");
            assertEquals(1, listener.failures.size(), listener.failures.toString());
            String reason = listener.failures.get(0);
            assertTrue(reason.contains("exited with code 4"), reason);
            assertTrue(reason.contains("no input wanted"), reason);
        }
    }
}
